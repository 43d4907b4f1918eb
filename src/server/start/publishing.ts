import path from 'node:path'
import type { Alerts } from '../delivery/alerts.ts'
import type { NodeServerConfig } from '../env.ts'
import type { NodeServerOptions } from '../node-options.ts'
import type { LocalUrlOf } from './requests.ts'
import type { NodeStore } from '../node-store.ts'
import type { LaunchPublisher } from '../site/launch-publisher.ts'
import { readLaunchVersion, type VersionSettings } from '../site/launch-version.ts'
import type { LiveLaunches } from '../site/live-launches.ts'
import { createLaunchPublisher, ownVersionsDir, type LaunchBuilder } from '../site/publisher.ts'
import { createBuildSharing } from '../site/shared-builds.ts'
import { createStaticHost } from '../site/static-host.ts'
import { createPostgresBuildShelf } from '../store/postgres/postgres-builds.ts'

/** What mountPublishing needs. */
export type PublishingDeps = {
  settings: NodeServerConfig
  options: NodeServerOptions
  cwd: string
  distRoot: string
  dataDir: string
  opened: NodeStore
  live: LiveLaunches
  versionSettings: VersionSettings
  alerts: Alerts
  localUrlOf: LocalUrlOf
}

/** How the server publishes: through the static host when there is one; each part stopped at close. */
export type NodePublishing = {
  /** What the studio publishes through (the static host's wrap of the publisher, when PUBLISH_COMMAND is set). */
  publishing: LaunchPublisher
  /** Starts the static host's phase starts, once the server listens. */
  start(): void
  /** Stops looking for other servers' builds (the first step of close). */
  stopSharing(): void
  /** Closes the publisher and the static host. */
  close(): Promise<void>
}

// Without a builder (a test, an embedder) every publish is refused, saying why.
const noBuilder: LaunchBuilder = {
  check: () => ({
    ok: false,
    problems: [
      {
        file: '',
        line: 1,
        column: 1,
        where: 'the server',
        message: 'This server was started without a builder: it cannot publish.',
        fix: 'Start it with npm start.',
        excerpt: '',
      },
    ],
  }),
  find: () => undefined,
}

const log = {
  info: (m: string) => console.log(m),
  error: (m: string, e?: unknown) =>
    console.error(`${m}: ${e instanceof Error ? e.message : typeof e === 'string' ? e : ''}`),
}

/** Several servers on one PostgreSQL: a publish on one is served by all, with no shared disk (shared-builds.ts). */
function shareBuilds({ opened, live, dataDir }: PublishingDeps) {
  if (!opened.database) return undefined
  return createBuildSharing({
    shelf: createPostgresBuildShelf(opened.database),
    live,
    stateFile: path.join(dataDir, 'shared-builds.json'),
    log,
  })
}

/** PUBLISH_COMMAND: each publish (and each phase's start) also put on a static host (site/static-host.ts). */
function staticHostOf({ settings, options, cwd, live, distRoot, dataDir, opened }: PublishingDeps) {
  if (settings.publishCommand === undefined) return undefined
  return createStaticHost({
    command: settings.publishCommand,
    cwd,
    live,
    dir: path.join(distRoot, '.static'),
    stateFile: path.join(dataDir, 'static-host.json'),
    clock: options.clock,
    timeZone: settings.timeZone,
    supabaseUrl: settings.supabaseUrl,
    claim: opened.claim,
  })
}

/** The publisher (this run's own versions folder), shared with other servers and sent to a static host when set. */
export async function mountPublishing(deps: PublishingDeps): Promise<NodePublishing> {
  const sharing = shareBuilds(deps)
  const publisher = createLaunchPublisher({
    share: sharing ? (...args) => sharing.share(...args) : undefined,
    live: deps.live,
    builder: deps.options.builder ?? noBuilder,
    // This run's own folder of published versions; what earlier runs published is removed (publisher.ts).
    versionsDir: ownVersionsDir(deps.distRoot),
    readVersion: (distDir, manifest) => readLaunchVersion(distDir, deps.versionSettings, manifest),
    localUrlOf: deps.localUrlOf,
    onPublished: (slug) => deps.alerts.forget(`launch-broken:${slug}:`),
    retireAfterMs: deps.options.retireAfterMs,
  })
  await sharing?.start(publisher)
  const staticHost = staticHostOf(deps)
  return {
    publishing: staticHost?.wrap(publisher) ?? publisher,
    start: () => staticHost?.start(),
    stopSharing: () => sharing?.stop(),
    async close() {
      publisher.close()
      await staticHost?.stop()
    },
  }
}
