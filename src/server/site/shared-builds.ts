import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { BuildFile, BuildShelf } from '../store/build-shelf.ts'
import { readVersionManifest, type VersionManifest } from './launch-version.ts'
import type { LiveLaunches } from './live-launches.ts'
import type { AdoptedBuild } from './publisher.ts'

/**
 * Several Node servers on one database serve the same launches with no shared disk (issue 26). A publish on any of
 * them keeps its build in the database (store/build-shelf.ts) before it is served there; every server looks every
 * `pollMs` for a launch's number it does not serve yet, writes that build into a version folder of its own, rewrites
 * its page.config.json (and the pictures it lacks) to match, and swaps, in turn with its own publishes.
 *
 * At start each server compares its launches with the database's newest: a file changed on disk since this server
 * last served the database's version (a developer's edit) is published from here as the newest, for all; otherwise
 * the database's newest is served. What each server serves is remembered in DATA_DIR/shared-builds.json.
 */

/** What the sharing needs of the publisher (publisher.ts). */
export type Adopter = { adopt(slug: string, build: AdoptedBuild): Promise<boolean> }

export type BuildSharingOptions = {
  shelf: BuildShelf
  live: LiveLaunches
  /** DATA_DIR/shared-builds.json: the number this server serves of each launch and its config's hash. */
  stateFile: string
  /** How often to look for versions published elsewhere. Default 2 s. */
  pollMs?: number
  log: { info(message: string): void; error(message: string, error?: unknown): void }
}

export type BuildSharing = {
  /** The publisher's `share` hook: keeps this server's build for the others before it is served. */
  share(slug: string, configText: string, distDir: string, manifest: VersionManifest): Promise<void>
  /** Brings this server in line with the database, then keeps it there until `stop`. */
  start(publisher: Adopter): Promise<void>
  /** One look at the database now (the poll's; tests and start call it). */
  sync(): Promise<void>
  stop(): void
}

type Served = { number: number; sha: string }

const sha = (text: string) => createHash('sha256').update(text).digest('hex')

/** Every file under `dir`, with '/'-separated paths relative to it. */
function filesOf(dir: string, prefix = ''): BuildFile[] {
  const files: BuildFile[] = []
  for (const entry of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name
    if (entry.isDirectory()) files.push(...filesOf(dir, relative))
    else if (entry.isFile()) files.push({ path: relative, bytes: readFileSync(path.join(dir, relative)) })
  }
  return files
}

/** A path from the database, as a file inside `dir`; undefined for one that would leave it. */
function inside(dir: string, relative: string): string | undefined {
  const target = path.resolve(dir, relative)
  return target.startsWith(path.resolve(dir) + path.sep) ? target : undefined
}

function isManifest(value: unknown): value is VersionManifest {
  return typeof (value as VersionManifest | undefined)?.contract?.slug === 'string'
}

function siteNameOf(configText: string, slug: string): string {
  try {
    return (JSON.parse(configText.replace(/^\uFEFF/, '')) as { site?: { name?: string } }).site?.name ?? slug
  } catch {
    // A published text is always JSON; the slug is name enough otherwise.
    return slug
  }
}

/** Writes a build's files into `outDir` (a path that would leave it is skipped). */
function writeFiles(outDir: string, files: BuildFile[]): void {
  for (const file of files) {
    const target = inside(outDir, file.path)
    if (!target) continue
    mkdirSync(path.dirname(target), { recursive: true })
    writeFileSync(target, file.bytes)
  }
}

/** The launch's public/images gets the pictures the build has and it lacks (uploaded on another server's studio). */
function copyMissingPictures(configFile: string | undefined, files: BuildFile[]): void {
  if (!configFile) return
  const imagesDir = path.join(path.dirname(configFile), 'public', 'images')
  for (const file of files) {
    if (!file.path.startsWith('images/') || /\.(br|gz)$/.test(file.path)) continue
    const target = inside(imagesDir, file.path.slice('images/'.length))
    if (!target || existsSync(target)) continue
    mkdirSync(path.dirname(target), { recursive: true })
    writeFileSync(target, file.bytes)
  }
}

/** What offering this server's launches needs: the shelf, what is served here, and how to remember and share. */
type Offering = {
  options: BuildSharingOptions
  served: ReadonlyMap<string, Served>
  remember: (slug: string, entry: Served) => void
  share: BuildSharing['share']
}

/** At start: a launch the database lacks, or whose file changed here since, is published from here for all. */
async function offerLocal({ options, served, remember, share }: Offering): Promise<void> {
  const latest = await options.shelf.latest()
  for (const launch of options.live.current().launches) {
    // A launch with problems keeps them here: its last good build is not offered with a text that has them.
    if (!launch.version || launch.problem || !launch.configFile || !existsSync(launch.configFile)) continue
    const text = readFileSync(launch.configFile, 'utf8')
    const known = served.get(launch.slug)
    const changedHere = known !== undefined && known.sha !== sha(text)
    const newest = latest.get(launch.slug)
    if (newest !== undefined && !changedHere) {
      // The same text as the database's newest: nothing to fetch, this server's build serves it.
      if (!known && sha(text) === sha((await options.shelf.get(launch.slug, newest))?.configText ?? ''))
        remember(launch.slug, { number: newest, sha: sha(text) })
      continue
    }
    const manifest = readVersionManifest(launch.version.distDir) ?? {
      contract: launch.version.contract,
      tagManager: false,
    }
    await share(launch.slug, text, launch.version.distDir, manifest)
    options.log.info(
      `Launch ${launch.slug}: ${changedHere ? 'its file changed on this server, so this version' : 'this version'} is now every server's (number ${served.get(launch.slug)!.number}).`,
    )
  }
}

export function createBuildSharing(options: BuildSharingOptions): BuildSharing {
  const pollMs = options.pollMs ?? 2_000
  const served = new Map<string, Served>(Object.entries(readState(options.stateFile)))
  let publisher: Adopter | undefined
  let timer: ReturnType<typeof setInterval> | undefined
  let running: Promise<void> | undefined

  function remember(slug: string, entry: Served): void {
    served.set(slug, entry)
    const temporary = `${options.stateFile}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify(Object.fromEntries(served), null, 2))
    renameSync(temporary, options.stateFile)
  }

  async function share(slug: string, configText: string, distDir: string, manifest: VersionManifest): Promise<void> {
    const number = await options.shelf.put(slug, configText, manifest, filesOf(distDir))
    remember(slug, { number, sha: sha(configText) })
  }

  /** Serves the database's version `number` of a launch here. */
  async function adopt(slug: string, number: number): Promise<void> {
    const build = await options.shelf.get(slug, number)
    if (!build || !publisher) return
    const { manifest, configText, files } = build
    if (!isManifest(manifest)) throw new Error(`version ${number} of ${slug} in the database has no manifest`)
    const adopted = await publisher.adopt(slug, {
      configText,
      siteName: siteNameOf(configText, slug),
      stillNew: () => (served.get(slug)?.number ?? 0) < number,
      fill: (outDir) => {
        writeFiles(outDir, files)
        return Promise.resolve(manifest)
      },
    })
    if (!adopted) return
    remember(slug, { number, sha: sha(configText) })
    copyMissingPictures(options.live.current().get(slug)?.configFile, files)
    options.log.info(`Launch ${slug}: now serving version ${number}, published on another server.`)
  }

  async function look(): Promise<void> {
    const latest = await options.shelf.latest()
    for (const [slug, number] of latest) {
      if ((served.get(slug)?.number ?? 0) >= number) continue
      try {
        await adopt(slug, number)
      } catch (error) {
        options.log.error(
          `Launch ${slug}: version ${number} from the database could not be served here; the current version keeps serving`,
          error,
        )
      }
    }
  }

  function sync(): Promise<void> {
    running ??= look().finally(() => (running = undefined))
    return running
  }

  return {
    share,
    sync,
    async start(adopter) {
      publisher = adopter
      await offerLocal({ options, served, remember, share })
      await sync()
      timer = setInterval(() => {
        sync().catch((error: unknown) =>
          options.log.error('Could not look for versions published on other servers', error),
        )
      }, pollMs)
      timer.unref()
    },
    stop() {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
    },
  }
}

function readState(file: string): Record<string, Served> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, Served>
  } catch {
    return {}
  }
}
