// The suppression list on PostgreSQL (suppression.ts: SuppressionStore).
import { queryNamed, type SqlQueryable } from '../sql-queryable.ts'
import { createGroupRead } from '../postgres/postgres-group-read.ts'
import type { AddressKey, SuppressionStore } from '../suppression.ts'

/** SuppressionStore on a PostgreSQL lead database. */
export function createPostgresSuppression(db: SqlQueryable): SuppressionStore {
  // Asked for every registration: the keys asked together are one statement (postgres-group-read.ts).
  const isListed = createGroupRead(async (keys) => {
    const { rows } = await queryNamed(
      db,
      'suppressions_listed',
      'SELECT address_key FROM public.suppressions WHERE address_key = ANY($1::text[])',
      [keys],
    )
    return (rows as Array<{ address_key: string }>).map((row) => row.address_key)
  })
  return {
    async suppressAddress(key) {
      await db.query('INSERT INTO public.suppressions (address_key) VALUES ($1) ON CONFLICT DO NOTHING', [key])
    },
    isSuppressed: (key: AddressKey) => isListed(key),
  }
}
