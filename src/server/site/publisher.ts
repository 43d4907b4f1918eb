import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import path from 'node:path'
import type { Problem } from '../../../schema/config-problem.ts'
import type { LaunchPublisher, PublishResult, ServedLaunch } from './launch-publisher.ts'
import type { LaunchVersion, VersionManifest } from './launch-version.ts'
import type { LiveLaunch, LiveLaunches } from './live-launches.ts'

/**
 * The Node server's LaunchPublisher: checks a config text with the real checker, builds that launch alone into a
 * new version folder (DIST_DIR/.versions/<this process>/<slug>/<n>/), writes its page.config.json atomically with
 * exactly the
 * given bytes, then swaps the launch's pages and function contract in one step. The version it replaces is removed
 * once requests that may still read it are long done (`retireAfterMs`). The checker and the build are the entry's
 * (src/build/launch-builder.ts): the server imports neither.
 */

/** A launch's place on disk, found by its slug: its config file, whether it is the default launch, its name. */
export type LaunchFolder = {
  slug: string
  configFile: string
  isDefault: boolean
  siteName: string
  addresses?: string[] | undefined
}

/**
 * A config that passed the checker, ready to build; `published` runs once its file is written (the function's bundle).
 */
export type CheckedConfig = { siteName: string; build(outDir: string): Promise<VersionManifest>; published?(): void }

/** What the entry gives the server to check and build launches with (src/build/launch-builder.ts). */
export type LaunchBuilder = {
  /**
   * Checks `text` as the config at `configFile` (its images in that folder's public/, its slug and addresses against
   * the other launches): the problems, or the config ready to build.
   */
  check(
    slug: string,
    configFile: string,
    text: string,
  ): { ok: true; config: CheckedConfig } | { ok: false; problems: Problem[] }
  /** The launch folder of a slug no running launch has (launches/<slug>/ with its page.config.json), if it exists. */
  find(slug: string): LaunchFolder | undefined
  /**
   * Where a launch of that slug keeps its config (launches/<slug>/page.config.json); undefined where launches are not
   * folders.
   */
  fileFor?(slug: string): string | undefined
}

/** What the publisher works on. */
export type PublisherOptions = {
  live: LiveLaunches
  builder: LaunchBuilder
  /**
   * This process's folder under DIST_DIR/.versions (ownVersionsDir): one folder per launch, one numbered folder per
   * version inside.
   */
  versionsDir: string
  /** Reads a built folder into a version (launch-version.ts: readLaunchVersion with the server's header settings). */
  readVersion(distDir: string, manifest: VersionManifest): Promise<LaunchVersion | undefined>
  /** The address of a launch a browser on this machine opens. */
  localUrlOf(launch: LiveLaunch): string
  /** After a launch is served anew (its broken-alert may be told again next time). */
  onPublished?: (slug: string) => void
  /** How long a replaced version stays on disk for requests still reading it. Default 60 s. */
  retireAfterMs?: number
  /**
   * Keeps a build for the other servers on the same database before it is served here (shared-builds.ts); a failure
   * fails the publish, so no server serves a version the others cannot get.
   */
  share?: (slug: string, configText: string, distDir: string, manifest: VersionManifest) => Promise<void>
}

/** A build another server published, to serve here (shared-builds.ts). */
export type AdoptedBuild = {
  configText: string
  siteName: string
  /** Writes the build's files into `outDir` and returns its manifest. */
  fill(outDir: string): Promise<VersionManifest>
  /** Checked when its turn in the queue comes: false when this server has since served it or a newer one. */
  stillNew(): boolean
}

/** The status a launch is shown with. */
export function statusOf(launch: LiveLaunch): ServedLaunch['status'] {
  return launch.problem ? 'broken' : launch.version ? 'live' : 'unpublished'
}

function problemOf(file: string, where: string, message: string, fix: string): Problem {
  return { file, line: 1, column: 1, where, message, fix, excerpt: '' }
}

/** Writes `text` to `file` in one step (a reader sees the old bytes or the new, never part of them). */
function writeFileAtomically(file: string, text: string): void {
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.tmp`)
  writeFileSync(temporary, text)
  renameSync(temporary, file)
}

/** A process alive on this machine (signal 0 only asks; EPERM means it runs as another user). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * This process's own folder for the versions it publishes or adopts, DIST_DIR/.versions/<host>-<pid>-<random>/, made
 * empty. Servers that share a DIST_DIR (a restart that overlaps the old process, two servers on one machine) never
 * number into, nor remove, each other's versions. What earlier runs left (processes of this machine that no longer
 * run, and folders of an older layout) is removed: a run serves the builds it was started with.
 */
export function ownVersionsDir(distRoot: string): string {
  const root = path.join(distRoot, '.versions')
  const host = hostname()
  const entries = existsSync(root) ? readdirSync(root, { withFileTypes: true }) : []
  for (const entry of entries) {
    const owner = /^(.+)-(\d+)-[0-9a-f]{8}$/.exec(entry.name)
    const abandoned = !owner || (owner[1] === host && !isRunning(Number(owner[2])))
    if (abandoned) rmSync(path.join(root, entry.name), { recursive: true, force: true })
  }
  const own = path.join(root, `${host}-${process.pid}-${randomBytes(4).toString('hex')}`)
  mkdirSync(own, { recursive: true })
  return own
}

/** The next free version number of a launch (folders are numbered 1, 2, …). */
function nextVersionDir(versionsDir: string, slug: string): string {
  const dir = path.join(versionsDir, slug)
  mkdirSync(dir, { recursive: true })
  const numbers = readdirSync(dir).map(Number).filter(Number.isInteger)
  return path.join(dir, String(Math.max(0, ...numbers) + 1))
}

/** What a publish or an adoption works with: the options, and how a replaced version leaves the disk. */
type Publishing = { options: PublisherOptions; retire(version: LaunchVersion | undefined): void }

/** The first line of an error's message, for a problem a person reads. */
const firstLineOf = (error: unknown) => (error as Error).message?.split('\n')[0] ?? String(error)

function noSuchLaunch(slug: string): PublishResult {
  return {
    ok: false,
    problems: [
      problemOf(
        path.join('launches', slug),
        'the launch',
        `There is no launch "${slug}": the folder launches/${slug}/ (with its page.config.json and public/) does not exist.`,
        `Start it first (npm run new-launch -- ${slug}, or New launch in the studio), then publish.`,
      ),
    ],
  }
}

/**
 * Builds a checked config into its next version folder and keeps it for the other servers; a problem leaves nothing.
 */
async function buildVersion(
  { options }: Publishing,
  slug: string,
  configText: string,
  configFile: string,
  config: CheckedConfig,
): Promise<{ ok: true; version: LaunchVersion } | { ok: false; problems: Problem[] }> {
  const outDir = nextVersionDir(options.versionsDir, slug)
  const failed = (where: string, message: string, fix: string) => {
    rmSync(outDir, { recursive: true, force: true })
    return { ok: false as const, problems: [problemOf(configFile, where, message, fix)] }
  }
  let version: LaunchVersion | undefined
  let manifest: VersionManifest
  try {
    manifest = await config.build(outDir)
    version = await options.readVersion(outDir, manifest)
    if (!version) throw new Error(`the build wrote no index.html into ${outDir}`)
  } catch (error) {
    return failed(
      'the build',
      `The launch could not be built: ${firstLineOf(error)}`,
      'Nothing was changed: the live version keeps serving. Fix what the message names (an image, usually) and publish again.',
    )
  }
  try {
    await options.share?.(slug, configText, outDir, manifest)
  } catch (error) {
    return failed(
      'the database',
      `The version could not be kept for the other servers: ${firstLineOf(error)}`,
      'Nothing was changed on any server. Check that the database (DATABASE_URL) is reachable, then publish again.',
    )
  }
  return { ok: true, version }
}

/** Writes the config, serves the version from now on and retires the one it replaces. */
function swapIn(
  publishing: Publishing,
  folder: LaunchFolder,
  version: LaunchVersion,
  configText: string,
  siteName: string,
) {
  const { slug } = folder
  writeFileAtomically(folder.configFile, configText)
  const launch = { slug, isDefault: folder.isDefault, configFile: folder.configFile, siteName }
  publishing.retire(publishing.options.live.swap(slug, version, launch))
}

async function publishNow(
  publishing: Publishing,
  slug: string,
  configText: string,
  started: number,
): Promise<PublishResult> {
  const { options } = publishing
  const folder = options.live.current().get(slug) ?? options.builder.find(slug)
  if (!folder) return noSuchLaunch(slug)
  const checked = options.builder.check(slug, folder.configFile, configText)
  if (!checked.ok) return checked
  const built = await buildVersion(publishing, slug, configText, folder.configFile, checked.config)
  if (!built.ok) return built
  swapIn(publishing, { ...folder, slug }, built.version, configText, checked.config.siteName)
  try {
    checked.config.published?.()
  } catch (error) {
    // Served and written already: the function's bundle catches up at the next build.
    console.error(`Publish of ${slug}: the function's bundle could not be updated: ${(error as Error).message}`)
  }
  options.onPublished?.(slug)
  return { ok: true, ms: Date.now() - started }
}

/** A launch made on another server (New launch there): its folder here, then the launch, unpublished until the swap. */
function folderFor({ options }: Publishing, slug: string, configText: string): LaunchFolder | undefined {
  const known = options.live.current().get(slug) ?? options.builder.find(slug)
  if (known) return { ...known, slug }
  const file = options.builder.fileFor?.(slug)
  if (!file) return undefined
  mkdirSync(path.join(path.dirname(file), 'public'), { recursive: true })
  writeFileAtomically(file, configText)
  const folder = options.builder.find(slug)
  if (folder) options.live.add({ ...folder, version: undefined })
  return folder
}

async function adoptNow(publishing: Publishing, slug: string, build: AdoptedBuild): Promise<boolean> {
  if (!build.stillNew()) return false
  const { options } = publishing
  const folder = folderFor(publishing, slug, build.configText)
  if (!folder) return false
  const outDir = nextVersionDir(options.versionsDir, slug)
  let version: LaunchVersion | undefined
  try {
    version = await options.readVersion(outDir, await build.fill(outDir))
    if (!version) throw new Error(`the version has no index.html`)
  } catch (error) {
    rmSync(outDir, { recursive: true, force: true })
    throw error
  }
  swapIn(publishing, folder, version, build.configText, build.siteName)
  options.onPublished?.(slug)
  return true
}

/** Retires replaced versions after a while (requests may still read them); `clear` forgets the pending ones. */
function createRetirement(options: PublisherOptions) {
  const retireAfterMs = options.retireAfterMs ?? 60_000
  const retiring = new Set<ReturnType<typeof setTimeout>>()
  return {
    retire(version: LaunchVersion | undefined): void {
      // Only a publish's own folders: dist/<slug>/ is npm run build's, left as it is.
      if (!version || !version.distDir.startsWith(options.versionsDir + path.sep)) return
      const timer = setTimeout(() => {
        retiring.delete(timer)
        rmSync(version.distDir, { recursive: true, force: true })
      }, retireAfterMs)
      timer.unref()
      retiring.add(timer)
    },
    clear(): void {
      for (const timer of retiring) clearTimeout(timer)
      retiring.clear()
    },
  }
}

/** The publisher, with `close` to remove its versions folder when the server has stopped answering. */
export function createLaunchPublisher(
  options: PublisherOptions,
): LaunchPublisher & { close(): void; adopt(slug: string, build: AdoptedBuild): Promise<boolean> } {
  const retirement = createRetirement(options)
  const publishing: Publishing = { options, retire: (version) => retirement.retire(version) }
  // One build at a time: two Vite builds at once on a small machine take longer than one after the other.
  let queue: Promise<unknown> = Promise.resolve()
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const result = queue.then(work)
    queue = result.catch(() => {})
    return result
  }
  const servedOf = (launch: LiveLaunch): ServedLaunch => ({
    slug: launch.slug,
    siteName: launch.siteName,
    configFile: launch.configFile,
    status: statusOf(launch),
    localUrl: options.localUrlOf(launch),
  })
  return {
    /** Serves a build another server published, in turn with this server's own publishes; false when not needed. */
    adopt: (slug, build) => inTurn(() => adoptNow(publishing, slug, build)),
    publish(slug, configText) {
      const started = Date.now()
      return inTurn(() => publishNow(publishing, slug, configText, started))
    },
    list: () => options.live.current().launches.map(servedOf),
    add(slug) {
      const known = options.live.current().get(slug)
      if (known) return servedOf(known)
      const folder = options.builder.find(slug)
      if (!folder) return undefined
      options.live.add({ ...folder, version: undefined })
      const added = options.live.current().get(slug)
      return added && servedOf(added)
    },
    close() {
      retirement.clear()
      rmSync(options.versionsDir, { recursive: true, force: true })
    },
  }
}
