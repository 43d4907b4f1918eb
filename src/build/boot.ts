import { pageLoadedAtGlobal } from '../page/page-loaded-at.ts'

/**
 * Starts the app once the page has loaded, from a module inline in the HTML (the CSP allows it by hash,
 * `cspHashesOf`): the prerendered page is complete without the app (links, and typing into the form, work before),
 * and nothing but the page and its pictures is fetched before the first paint. Vite's entry script and its
 * modulepreload links are replaced by that module, which preloads the same files and imports the entry at the
 * window's load event, in tasks of their own (a message to its own channel, as yield-to-main.ts does): the load event
 * often fires in the task that parsed the page's end and laid it out, and its requests would make that long task
 * longer still. Each request starts in a task of its own too: a modulepreload link costs the browser a few ms of CPU
 * on a phone (Blink starts the fetch as the link is added), and all of them in one task made a task of 50-80 ms.
 * An external boot file or early preloads would be requests of their own on a phone's slow first connections, ahead
 * of the first paint. `extraPreloads` are preloaded with them (a launch's own form validator). It also notes when the
 * page loaded (`readPageLoadedAt`): the dialog's timer counts from then, not from when the app's code got to run.
 *
 * The entry is preloaded last, and each module is imported only after its file is fetched and compiled (its link's
 * load event), in a task of its own: the chunks `evaluateFirst` picks (React DOM's) first, one after the other, then
 * the entry. A module graph is compiled and evaluated in the task its last file arrives in otherwise, and the
 * evaluation of React DOM's 214 KiB with the app's own modules made the longest task of the app's start.
 */
export function bootAfterLoad(
  html: string,
  extraPreloads: readonly string[] = [],
  evaluateFirst: (href: string) => boolean = () => false,
): string {
  const preloads: string[] = []
  const withoutPreloads = html.replace(
    /[ \t]*<link rel="modulepreload"[^>]*href="(\/assets\/[^"]+\.js)"[^>]*>\n?/g,
    (_tag, href: string) => {
      preloads.push(href)
      return ''
    },
  )
  preloads.push(...extraPreloads)
  const first = preloads.filter(evaluateFirst)
  let entry: string | undefined
  const booted = withoutPreloads.replace(
    /<script type="module" crossorigin src="(\/assets\/[^"]+\.js)"><\/script>/,
    (_tag, src: string) => {
      entry = src
      const code = [
        `const later=(f)=>{const c=new MessageChannel();c.port1.onmessage=()=>{c.port1.close();f()};c.port2.postMessage(0)};`,
        `const preloads=${JSON.stringify([...preloads, src])},first=${JSON.stringify(first)},entry=${JSON.stringify(src)},loads={};`,
        // A module is imported once its file is fetched and compiled (its link's load event), in a task of its own.
        `const run=(href)=>loads[href].then(()=>new Promise(later)).then(()=>import(href));`,
        `const start=(i)=>{if(i===preloads.length)return void first.reduce((done,href)=>done.then(()=>run(href)),Promise.resolve()).then(()=>run(entry));`,
        `const link=document.head.appendChild(Object.assign(document.createElement("link"),{rel:"modulepreload",href:preloads[i]}));`,
        `loads[preloads[i]]=new Promise((done)=>{link.onload=link.onerror=done});later(()=>start(i+1))};`,
        `const loaded=()=>{globalThis.${pageLoadedAtGlobal}=performance.now();later(()=>start(0))};`,
        `document.readyState==="complete"?loaded():addEventListener("load",loaded,{once:true});`,
      ].join('')
      return `<script type="module">${code}</script>`
    },
  )
  if (!entry)
    throw new Error(
      "The built index.html has no module script for the app's entry: Vite's output changed, so the boot step cannot start the app.",
    )
  return booted
}
