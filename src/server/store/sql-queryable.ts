/**
 * The one thing a PostgreSQL-backed store needs from a client: `query(text, params)` resolving to `{ rows }`. A
 * `pg.Pool` (Node, Deno through npm:pg) fits as it is, and so does PGlite. Each call runs as one statement, so a
 * store's every write is a single statement: atomic without holding a connection across awaits. Part of the store's
 * contract, not a driver: the rooms that are handed a pool (the leads page's sessions, the studio) name it from here.
 */
export type SqlQueryable = {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>
  /**
   * Runs `text` as a statement the database keeps parsed (and its plan) on each connection under `name`, so a
   * statement run on every registration is not parsed and planned anew each time (postgres/postgres-named.ts gives a
   * pg.Pool this). Absent: `query`. One name is always one text.
   */
  queryNamed?(name: string, text: string, params: unknown[]): Promise<{ rows: unknown[] }>
}

/** Runs a statement named where the client keeps named statements, else as `query` does. */
export function queryNamed(
  db: SqlQueryable,
  name: string,
  text: string,
  params: unknown[],
): Promise<{ rows: unknown[] }> {
  return db.queryNamed ? db.queryNamed(name, text, params) : db.query(text, params)
}
