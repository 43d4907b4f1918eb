import 'react-dom/client'
import { yieldToMain } from './yield-to-main.ts'

/*
 * React DOM evaluated in a task of its own, before the app's modules. Evaluating it is the largest piece of the app's
 * start (its module runs once, about 190 KiB of code), and a module graph evaluates in one task: on a phone React DOM
 * and the app together made one task of 60-110 ms. The entry imports this module first; the bundle keeps the modules
 * in that order, so React DOM runs here, and this top-level await ends the task before the modules after it run.
 */
await yieldToMain()
