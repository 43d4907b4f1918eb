import 'react-dom/client'
import { yieldToMain } from './yield-to-main.ts'

/*
 * React DOM evaluated in a task of its own, before the app's modules. Evaluating it is the largest piece of the app's
 * start (its module runs once, about 190 KiB of code), and a module graph evaluates in one task: on a phone React DOM
 * and the app together made one task of 60-110 ms. This module is in React DOM's chunk (`reactDomChunkName` in
 * src/build/vite-config.ts), which the page's boot imports in a task before the entry (src/build/boot.ts). Where the
 * entry is the first to import it (the dev server), the entry imports this module first; the modules keep that order,
 * so React DOM runs here, and this top-level await ends the task before the modules after it run.
 */
await yieldToMain()
