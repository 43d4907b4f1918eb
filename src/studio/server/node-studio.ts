import path from 'node:path'
import type { Launch } from '../../config/launches.ts'
import { readOrCreateSecret } from '../../server/private-files.ts'
import type { StudioHost, StudioMount } from '../../server/node.ts'
import type { LaunchPublisher } from '../../server/site/launch-publisher.ts'
import { createFilePublisher } from './file-publisher.ts'
import { openSqliteStudioStore } from './sqlite-store.ts'
import { createStudio } from './studio.ts'

/** What the entry knows that the studio needs besides what the server gives it. */
export type NodeStudioOptions = {
  /** The checked launches, default first (their files are what the studio edits). */
  launches: Launch[]
  /** The built browser part (DIST_DIR/_studio). */
  clientDir: string
  /** PUBLIC_URL: where links point; https there makes cookies Secure too. */
  publicUrl?: string | undefined
  port: number
  /** The Node server's publisher (builds and swaps a launch); until it is given, createFilePublisher stands in. */
  publisher?: LaunchPublisher
}

/**
 * The studio for the Node server (startNodeServer's `studio` option): its database DATA_DIR/studio.sqlite, its key
 * DATA_DIR/studio.key (preview links, device cookies), and the launches' files recorded as versions at start.
 */
export function nodeStudioOf(options: NodeStudioOptions): (host: StudioHost) => Promise<StudioMount> {
  return async (host) => {
    const store = openSqliteStudioStore(path.join(host.dataDir, 'studio.sqlite'))
    const publisher =
      options.publisher ??
      createFilePublisher(
        options.launches.map((launch) => ({
          slug: launch.slug,
          siteName: launch.config.site.name,
          configFile: launch.configFile,
          localUrl: launch.isDefault ? `http://localhost:${options.port}/` : `http://${launch.slug}.localhost:${options.port}/`,
        })),
      )
    const studio = createStudio({
      store,
      publisher,
      secret: readOrCreateSecret(path.join(host.dataDir, 'studio.key')),
      clientDir: options.clientDir,
      secureCookies: host.secureCookies || options.publicUrl?.startsWith('https:') === true,
      clientAddress: host.clientAddress,
      sendMail: host.sendMail,
      publicUrl: options.publicUrl,
    })
    await studio.recordDiskVersions()
    return { app: studio.app, close: () => store.close() }
  }
}
