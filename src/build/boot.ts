import { createHash } from 'node:crypto'
import { pageLoadedAtGlobal } from '../page/page-loaded-at.ts'

/** The boot file's name before its hash: `/assets/boot-<hash>.js`. */
export const bootFilePrefix = 'boot-'

/** The page with its inline starter module, and the boot file that starter imports (`name` under assets/). */
export type Booted = { html: string; bootFile: { name: string; code: string } }

/**
 * Starts the app once the page has loaded and its first contentful paint is on screen: the prerendered page is
 * complete without the app (links, and typing into the form, work before), and nothing but the page and its pictures
 * is fetched before the first paint. Vite's entry script and its modulepreload links are replaced by a small module
 * inline in the HTML (the CSP allows it by hash, `cspHashesOf`), which notes when the page loaded (`readPageLoadedAt`:
 * the dialog's timer counts from then, not from when the app's code got to run) and then imports the boot file, which
 * preloads the same files and imports the entry, in tasks of their own (a message to its own channel, as
 * yield-to-main.ts does). Each request starts in a task of its own: a modulepreload link costs the browser a few ms
 * of CPU on a phone (Blink starts the fetch as the link is added), and all of them in one task made a task of
 * 50-80 ms. Any request before the first paint would be one of its own on a phone's slow first connections.
 *
 * The load event alone is not enough: on a fast load it often comes before the first frame is presented (a page from
 * the cache, a fast machine, and Lighthouse, which records the load unthrottled before it simulates a phone), and the
 * app's requests, compiles and tasks then compete with that frame. Lighthouse's simulation counted them on the first
 * paint's path (issue 46). So the starter waits for the first contentful paint's entry (Paint Timing) too, which the
 * browser queues once the frame is on screen. A page loaded in a background tab paints, and so starts its app, when
 * first shown; a browser without paint entries starts it at the load event.
 *
 * The boot's code is a file, not inline, because every byte inline is a byte of the HTML: a new connection delivers
 * about 14.6 KB in its first round trip, and the page's HTML sits just under that (docs/performance.md, issue 46).
 * The file costs a request after the first paint, never one before it.
 *
 * The entry is preloaded last, and each module is imported only after its file is fetched and compiled (its link's
 * load event), in a task of its own: the chunks `evaluateFirst` picks (React DOM's) first, one after the other, then
 * the entry. A module graph is compiled and evaluated in the task its last file arrives in otherwise, and the
 * evaluation of React DOM's 214 KiB with the app's own modules made the longest task of the app's start.
 */
export function bootAfterLoad(html: string, evaluateFirst: (href: string) => boolean = () => false): Booted {
  const preloads: string[] = []
  const withoutPreloads = html.replace(
    /[ \t]*<link rel="modulepreload"[^>]*href="(\/assets\/[^"]+\.js)"[^>]*>\n?/g,
    (_tag, href: string) => {
      preloads.push(href)
      return ''
    },
  )
  const first = preloads.filter(evaluateFirst)
  let bootFile: Booted['bootFile'] | undefined
  const booted = withoutPreloads.replace(
    /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/,
    (_tag, entry: string) => {
      const code = [
        `const later=(f)=>{const c=new MessageChannel();c.port1.onmessage=()=>{c.port1.close();f()};c.port2.postMessage(0)};`,
        `const preloads=${JSON.stringify([...preloads, entry])},first=${JSON.stringify(first)},entry=${JSON.stringify(entry)},loads={};`,
        // A module is imported once its file is fetched and compiled (its link's load event), in a task of its own.
        `const run=(href)=>loads[href].then(()=>new Promise(later)).then(()=>import(href));`,
        `const start=(i)=>{if(i===preloads.length)return void first.reduce((done,href)=>done.then(()=>run(href)),Promise.resolve()).then(()=>run(entry));`,
        `const link=document.head.appendChild(Object.assign(document.createElement("link"),{rel:"modulepreload",href:preloads[i]}));`,
        `loads[preloads[i]]=new Promise((done)=>{link.onload=link.onerror=done});later(()=>start(i+1))};`,
        `start(0);\n`,
      ].join('')
      const hash = createHash('sha256').update(code).digest('base64url').slice(0, 8)
      bootFile = { name: `${bootFilePrefix}${hash}.js`, code }
      const starter = [
        `const boot=()=>import("/assets/${bootFile.name}");`,
        `const painted=(f)=>{if(!PerformanceObserver.supportedEntryTypes?.includes("paint"))return f();`,
        `new PerformanceObserver((l,o)=>{if(l.getEntriesByName("first-contentful-paint").length){o.disconnect();f()}}).observe({type:"paint",buffered:true})};`,
        `const loaded=()=>{globalThis.${pageLoadedAtGlobal}=performance.now();painted(boot)};`,
        `document.readyState==="complete"?loaded():addEventListener("load",loaded,{once:true});`,
      ].join('')
      return `<script type="module">${starter}</script>`
    },
  )
  if (!bootFile)
    throw new Error(
      "The built index.html has no module script for the app's entry: Vite's output changed, so the boot step cannot start the app.",
    )
  return { html: booted, bootFile }
}
