/**
 * The one thing a PostgreSQL-backed store needs from a client: `query(text, params)` resolving to `{ rows }`. A
 * `pg.Pool` (Node, Deno through npm:pg) fits as it is, and so does PGlite. Each call runs as one statement, so a
 * store's every write is a single statement: atomic without holding a connection across awaits. Part of the store's
 * contract, not a driver: the rooms that are handed a pool (the leads page's sessions, the studio) name it from here.
 */
export type SqlQueryable = {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>
}
