import type { SqlQueryable } from '../sql-queryable.ts'

/** A client that takes pg's query config: a pg.Pool or pg.Client. */
export type NamingClient = SqlQueryable & {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>
}

/**
 * PostgreSQL's answers when a named statement meets a connection pooler in transaction mode (PgBouncer before 1.21,
 * Supavisor without prepared statements): the statement parsed on one server connection is not on the next one (26000),
 * or another client's of the same name already is (42P05). Neither ran anything.
 */
const notKept = new Set(['26000', '42P05'])

/**
 * A pg.Pool (or Client) as a SqlQueryable with named statements (sql-queryable.ts's queryNamed): each connection
 * parses and plans a named statement once, so PostgreSQL skips both on every later run. Where the database cannot keep
 * them (a pooler in transaction mode), the first refusal runs that statement again unnamed, and every later one is
 * unnamed.
 */
export function withNamedStatements(client: NamingClient): SqlQueryable {
  let naming = true
  return {
    query: (text, params) => client.query(text, params),
    async queryNamed(name, text, values) {
      if (!naming) return client.query(text, values)
      try {
        return await client.query({ name, text, values })
      } catch (error) {
        const code = (error as { code?: unknown }).code
        if (typeof code !== 'string' || !notKept.has(code)) throw error
        naming = false
        return client.query(text, values)
      }
    },
  }
}
