import path from 'node:path'
import { readOrCreateSecret } from '../../server/store/private-files.ts'
import type { StudioHost, StudioMount } from '../../server/node-options.ts'
import type { SqlQueryable } from '../../server/store/sql-queryable.ts'
import { createPostgresStudioStore, readOrCreatePostgresStudioKey } from './postgres-store.ts'
import { openSqliteStudioStore } from './sqlite-store.ts'
import type { StudioStore } from './store.ts'
import { hostGate } from './gates/host-gate.ts'
import { createStudio } from './studio.ts'

/** What the entry knows that the studio needs besides what the server gives it. */
export type NodeStudioOptions = {
  /** The built browser part (DIST_DIR/_studio). */
  clientDir: string
  /** PUBLIC_URL: where links point; https there makes cookies Secure too. */
  publicUrl?: string | undefined
  /** STUDIO_HOST: the one host the studio and the leads page answer on. */
  studioHost?: string | undefined
  /** The project's folder, where New launch makes launches/<slug>/ (the builder's root). */
  root?: string | undefined
}

/**
 * The studio's store where the server keeps its data: PostgreSQL when a pool is given (DATABASE_URL; the pool stays
 * its owner's to end), else DATA_DIR/studio.sqlite.
 */
export function openStudioStore(where: { dataDir: string; pool?: SqlQueryable | undefined }): StudioStore {
  return where.pool
    ? createPostgresStudioStore(where.pool)
    : openSqliteStudioStore(path.join(where.dataDir, 'studio.sqlite'))
}

/**
 * The studio for the Node server (startNodeServer's `studio` option): its data in the host's PostgreSQL pool when it
 * has one, else DATA_DIR/studio.sqlite; its key (preview links, device cookies) beside them, shared by every server on
 * the database (else DATA_DIR/studio.key); and the launches' files recorded as versions at start.
 */
export function nodeStudioOf(options: NodeStudioOptions): (host: StudioHost) => Promise<StudioMount> {
  return async (host) => {
    const store = openStudioStore(host)
    const publisher = host.publisher
    const studio = createStudio({
      store,
      publisher,
      signInCounts: host.signInCounts,
      root: options.root,
      secret: host.pool
        ? await readOrCreatePostgresStudioKey(host.pool)
        : readOrCreateSecret(path.join(host.dataDir, 'studio.key')),
      clientDir: options.clientDir,
      secureCookies: host.secureCookies || options.publicUrl?.startsWith('https:') === true,
      clientAddress: host.clientAddress,
      sendMail: host.sendMail,
      publicUrl: options.publicUrl,
      studioHost: options.studioHost,
      launchHosts: host.launchHosts,
      timeZone: host.timeZone,
      clock: host.clock,
      release: host.release,
    })
    await studio.recordDiskVersions()
    const leadsGate = hostGate({ ...options, launchHosts: host.launchHosts ?? (() => []) })
    return {
      app: studio.app,
      close: () => store.close(),
      leads: studio.leads,
      hostGate: leadsGate,
    }
  }
}
