import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Context, MiddlewareHandler } from 'hono'
import type { FunctionLaunch } from '../../../schema/function-launch.ts'
import { cspHashesOf, secureHeadersMiddleware, styleHashesOf } from './security-headers.ts'
import { createStaticSite } from './static-site.ts'

/**
 * One built version of a launch, as the Node server serves it: a folder of pages (dist/<slug>/ from `npm run build`,
 * or dist/.versions/<slug>/<n>/ from a publish) and the function's contract it was built with, read once. A version
 * never changes once served: a publish makes a new one and the server swaps to it.
 */

/** The file a build writes beside the pages: the function's contract of that build (a dotfile: never served). */
export const versionManifestFile = '.launch.json'

/** What a build records of its launch for the server: the function's contract and whether the page loads Tag Manager. */
export type VersionManifest = { contract: FunctionLaunch; tagManager: boolean }

/** A version ready to serve: its folder, contract, home page and the handlers made from them. */
export type LaunchVersion = {
  distDir: string
  contract: FunctionLaunch
  /** index.html: a plain form post with fields to correct is answered with it, filled in. */
  home: string
  /** The pages' inline stylesheet (the server's own pages reuse it; its CSP hash is allowed). */
  pageCss: string | undefined
  /** Security headers with this version's inline scripts and styles allowed by hash. */
  headers: MiddlewareHandler
  files: (c: Context) => Promise<Response>
}

/** What the headers need besides the pages: HTTPS behind a proxy, and where a hosted form posts. */
export type VersionHeaderSettings = { https: boolean; supabaseUrl: string | undefined }

/** The manifest of a built folder, or undefined when there is none (built before manifests existed) or it is unreadable. */
export function readVersionManifest(distDir: string): VersionManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(distDir, versionManifestFile), 'utf8')) as VersionManifest
    return typeof manifest?.contract?.slug === 'string' ? manifest : undefined
  } catch {
    return undefined
  }
}

/**
 * Reads a built folder into a version: undefined when it has no index.html or no contract (its own manifest, else
 * `fallback`: the contract of the config the entry has just checked).
 */
export async function readLaunchVersion(
  distDir: string,
  settings: VersionHeaderSettings,
  fallback?: VersionManifest,
): Promise<LaunchVersion | undefined> {
  const homeFile = path.join(distDir, 'index.html')
  if (!existsSync(homeFile)) return undefined
  const manifest = readVersionManifest(distDir) ?? fallback
  if (!manifest) return undefined
  const pages = ['index.html', '404.html'].filter((f) => existsSync(path.join(distDir, f))).map((f) => readFileSync(path.join(distDir, f), 'utf8'))
  const home = pages[0]!
  return {
    distDir,
    contract: manifest.contract,
    home,
    pageCss: pages.map((html) => /<style>([\s\S]*?)<\/style>/.exec(html)?.[1]).find((css) => css !== undefined),
    headers: secureHeadersMiddleware({
      jsonLdHashes: [...new Set((await Promise.all(pages.map(cspHashesOf))).flat())],
      styleHashes: [...new Set((await Promise.all(pages.map(styleHashesOf))).flat())],
      https: settings.https,
      ...(settings.supabaseUrl ? { supabaseUrl: settings.supabaseUrl } : {}),
      tagManager: manifest.tagManager,
    }),
    files: createStaticSite({ distDir }),
  }
}
