import { createHash } from 'node:crypto'
import { spawn } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BuildSettings } from '../server/env.ts'
import { bootAfterLoad } from './boot.ts'
import { precompressFiles } from './precompress.ts'
import { buildStudioClient } from './studio-client.ts'
import { createPageCodeViteConfig, reactDomChunkName } from './vite-config.ts'

/**
 * The page's code, built once for every launch: the code is the same for each (only configs, images, prerendered
 * HTML and the form's validator differ, and those are the launch's own step, src/cli/build.ts). One client build and
 * one prerender bundle per fingerprint of what they are built from, kept under node_modules/.cache/page-code/ so a
 * publish, a build of one launch or of twenty, and the next `npm start` reuse them.
 */

/** A built page code: the template every launch's pages are filled from, its assets, and the prerenderer. */
export type PageCode = {
  /** The fingerprint of the sources it was built from. */
  fingerprint: string
  /** Its folder: template.html, client/assets/ (with .br/.gz copies), ssr/prerender.js. */
  dir: string
  /**
   * The built index.html, its stylesheet inlined and its scripts replaced by the boot's starter (src/build/boot.ts):
   * what every launch's pages are filled from.
   */
  template: string
  /** client/: copied into every launch's folder as it is (assets/…). */
  clientDir: string
  /** The prerender bundle's entry (src/build/prerender.tsx built for Node). */
  ssrEntry: string
  /**
   * The studio's browser part (src/build/studio-client.ts), built from the same sources: what <DIST_DIR>/_studio/
   * holds.
   */
  studioDir: string
  /** Whether this call reused a build made earlier (by this process or another). */
  reused: boolean
}

/**
 * This program's folder (src/, index.html, node_modules/): the page code is the program's, whichever project it builds.
 */
export const programRoot = fileURLToPath(new URL('../..', import.meta.url))

/** Where builds keep what they share: the page code, image variants (node_modules/.cache, which git and npm ignore). */
export const buildCacheDir = path.join(programRoot, 'node_modules', '.cache')
const completeMarker = '.complete'
/** Older builds kept beside the current one (a rollback of the code reuses them); the rest are removed. */
const keptBuilds = 3

/** Every file under `dir`, at any depth (none when it does not exist). */
export function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
}

/**
 * The fingerprint of everything the page code is built from: the sources (by content, so a fresh clone of the same
 * commit hits the same build), index.html, the lock file, and the settings baked into the client (VITE_SUPABASE_*).
 */
export function pageCodeFingerprint(root: string, settings: Pick<BuildSettings, 'supabaseUrl' | 'anonKey'>): string {
  const files = [
    ...listFiles(path.join(root, 'src')),
    ...listFiles(path.join(root, 'schema')),
    path.join(root, 'index.html'),
    path.join(root, 'package-lock.json'),
  ].sort()
  const hash = createHash('sha256').update(`page-code 1\n${settings.supabaseUrl ?? ''}\n${settings.anonKey}\n`)
  for (const file of files) {
    hash.update(`${path.relative(root, file)}\0`)
    hash.update(existsSync(file) ? readFileSync(file) : '')
    hash.update('\0')
  }
  return hash.digest('hex').slice(0, 20)
}

/**
 * A hard link (no bytes copied: the cached or built file is never written again), or a copy where links cannot be made.
 */
export function linkOrCopyFile(from: string, to: string): void {
  try {
    linkSync(from, to)
  } catch {
    copyFileSync(from, to)
  }
}

/**
 * Puts the page's stylesheet into the HTML: a render-blocking request less before the first paint (the CSS is
 * ~6 KiB compressed). The CSP allows this one <style> by hash.
 */
function inlineStylesheets(html: string, clientDir: string): string {
  return html.replace(/<link rel="stylesheet"[^>]*href="(\/assets\/[^"]+\.css)"[^>]*>/g, (_tag, href: string) => {
    const file = path.join(clientDir, href)
    const css = readFileSync(file, 'utf8').replace(/<\/style/gi, '<\\/style')
    rmSync(file)
    return `<style>${css}</style>`
  })
}

function readBuilt(dir: string, fingerprint: string, reused: boolean): PageCode {
  return {
    fingerprint,
    dir,
    template: readFileSync(path.join(dir, 'template.html'), 'utf8'),
    clientDir: path.join(dir, 'client'),
    ssrEntry: path.join(dir, 'ssr', 'prerender.js'),
    studioDir: path.join(dir, 'studio'),
    reused,
  }
}

/**
 * Builds the page code and the studio's browser part into `dir` (run in a child process of its own: see `buildInto`).
 */
async function buildHere(dir: string, root: string): Promise<void> {
  const { build } = await import('vite')
  const clientDir = path.join(dir, 'client')
  // Each build gets its own plugin instances: they keep state from the build they are configured for.
  const client = createPageCodeViteConfig(root)
  await build({ ...client, logLevel: 'warn', build: { ...client.build, outDir: clientDir } })
  const ssr = createPageCodeViteConfig(root)
  await build({
    ...ssr,
    logLevel: 'warn',
    build: {
      ssr: path.join(root, 'src/build/prerender.tsx'),
      outDir: path.join(dir, 'ssr'),
      emptyOutDir: true,
      copyPublicDir: false,
    },
  })
  const htmlFile = path.join(clientDir, 'index.html')
  // Vite's entry script and preloads become the boot (src/build/boot.ts): React DOM's chunk evaluated first.
  const { html, bootFile } = bootAfterLoad(inlineStylesheets(readFileSync(htmlFile, 'utf8'), clientDir), (href) =>
    href.startsWith(`/assets/${reactDomChunkName}-`),
  )
  writeFileSync(path.join(clientDir, 'assets', bootFile.name), bootFile.code)
  writeFileSync(path.join(dir, 'template.html'), html)
  rmSync(htmlFile)
  await precompressFiles(listFiles(clientDir))
  await buildStudioClient(path.join(dir, 'studio'))
  writeFileSync(path.join(dir, completeMarker), new Date().toISOString())
}

/**
 * Builds the page code into `dir` in a child process with NODE_ENV=production: the output is the same whoever asks
 * (the React plugin compiles JSX for development when the caller's NODE_ENV is not production, as under a test
 * runner), the server that publishes never loads Vite, and its event loop keeps answering while Vite works.
 */
function buildInto(dir: string, root: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), dir], {
      cwd: root,
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: ['ignore', 'inherit', 'pipe'],
    })
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => {
      errors += chunk.toString()
      process.stderr.write(chunk)
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      if (code === 0) resolve()
      else reject(new Error(`the page code did not build (${errors.trim().split('\n').at(-1) ?? `exit ${code}`})`))
    })
  })
}

function pruneOldBuilds(cacheRoot: string, keep: string): void {
  const builds = readdirSync(cacheRoot, { withFileTypes: true })
    .filter(
      (entry) =>
        entry.isDirectory() && entry.name !== keep && existsSync(path.join(cacheRoot, entry.name, completeMarker)),
    )
    .map((entry) => ({
      dir: path.join(cacheRoot, entry.name),
      at: statSync(path.join(cacheRoot, entry.name, completeMarker)).mtimeMs,
    }))
    .sort((a, b) => b.at - a.at)
  for (const old of builds.slice(keptBuilds - 1)) rmSync(old.dir, { recursive: true, force: true })
}

const building = new Map<string, Promise<PageCode>>()
const fingerprints = new Map<string, string>()

/**
 * The page code for the current sources: the one built before when its fingerprint matches, else a new build (one
 * at a time per fingerprint in this process; another process building the same one at once wins or loses the final
 * rename, and either way both use a whole build).
 */
export function loadPageCode(settings: Pick<BuildSettings, 'supabaseUrl' | 'anonKey'>): Promise<PageCode> {
  const root = programRoot
  // Read once per process (every launch of a build, every publish asks): the sources this process runs are the ones
  // it started with, and its publishes use the page code of those.
  const settingsKey = `${settings.supabaseUrl ?? ''}\n${settings.anonKey}`
  let fingerprint = fingerprints.get(settingsKey)
  if (!fingerprint) fingerprints.set(settingsKey, (fingerprint = pageCodeFingerprint(root, settings)))
  const cacheRoot = path.join(buildCacheDir, 'page-code')
  const dir = path.join(cacheRoot, fingerprint)
  if (existsSync(path.join(dir, completeMarker))) return Promise.resolve(readBuilt(dir, fingerprint, true))
  const pending = building.get(fingerprint)
  // A launch built beside the one that started the build (two at a time) reuses that build.
  if (pending) return pending.then((code) => ({ ...code, reused: true }))
  const made = (async () => {
    mkdirSync(cacheRoot, { recursive: true })
    const fresh = `${dir}.building-${process.pid}`
    rmSync(fresh, { recursive: true, force: true })
    try {
      await buildInto(fresh, root)
      if (existsSync(path.join(dir, completeMarker))) rmSync(fresh, { recursive: true, force: true })
      else {
        rmSync(dir, { recursive: true, force: true })
        renameSync(fresh, dir)
      }
    } catch (error) {
      rmSync(fresh, { recursive: true, force: true })
      throw error
    }
    pruneOldBuilds(cacheRoot, fingerprint)
    return readBuilt(dir, fingerprint, false)
  })()
  building.set(fingerprint, made)
  made.then(
    () => building.delete(fingerprint),
    () => building.delete(fingerprint),
  )
  return made
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url) && process.argv[2]) {
  await buildHere(process.argv[2], programRoot)
}
