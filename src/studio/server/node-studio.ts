import path from 'node:path'
import { readOrCreateSecret } from '../../server/store/private-files.ts'
import type { StudioHost, StudioMount } from '../../server/node-options.ts'
import { openSqliteStudioStore } from './sqlite-store.ts'
import { createStudio } from './studio.ts'

/** What the entry knows that the studio needs besides what the server gives it. */
export type NodeStudioOptions = {
  /** The built browser part (DIST_DIR/_studio). */
  clientDir: string
  /** PUBLIC_URL: where links point; https there makes cookies Secure too. */
  publicUrl?: string | undefined
  /** The project's folder, where New launch makes launches/<slug>/ (the builder's root). */
  root?: string | undefined
}

/**
 * The studio for the Node server (startNodeServer's `studio` option): its database DATA_DIR/studio.sqlite, its key
 * DATA_DIR/studio.key (preview links, device cookies), and the launches' files recorded as versions at start.
 */
export function nodeStudioOf(options: NodeStudioOptions): (host: StudioHost) => Promise<StudioMount> {
  return async (host) => {
    const store = openSqliteStudioStore(path.join(host.dataDir, 'studio.sqlite'))
    const publisher = host.publisher
    const studio = createStudio({
      store,
      publisher,
      signInCounts: host.signInCounts,
      root: options.root,
      secret: readOrCreateSecret(path.join(host.dataDir, 'studio.key')),
      clientDir: options.clientDir,
      secureCookies: host.secureCookies || options.publicUrl?.startsWith('https:') === true,
      clientAddress: host.clientAddress,
      sendMail: host.sendMail,
      publicUrl: options.publicUrl,
      timeZone: host.timeZone,
      clock: host.clock,
    })
    await studio.recordDiskVersions()
    return { app: studio.app, close: () => store.close(), leads: studio.leads }
  }
}
