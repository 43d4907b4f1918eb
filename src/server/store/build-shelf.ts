/**
 * Where several Node servers on one database keep the launches' published builds, so each serves what one of them
 * published (site/shared-builds.ts). PostgreSQL's is postgres/postgres-builds.ts; one server alone on SQLite needs
 * none.
 */

/** One file of a built folder: its path inside the folder ('/'-separated) and its bytes. */
export type BuildFile = { path: string; bytes: Uint8Array }

/**
 * A published build: the config text exactly as published, its build's manifest (JSON the site reads) and its files.
 */
export type SharedBuild = { launch: string; number: number; configText: string; manifest: unknown; files: BuildFile[] }

export type BuildShelf = {
  /** Keeps a build under the launch's next number, all of it or nothing; returns that number. */
  put(launch: string, configText: string, manifest: unknown, files: BuildFile[]): Promise<number>
  /** The newest number of each launch that has one. */
  latest(): Promise<Map<string, number>>
  get(launch: string, number: number): Promise<SharedBuild | undefined>
}
