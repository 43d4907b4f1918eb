import type { SqlQueryable } from '../../../server/store/sql-queryable.ts'
import { AccountExistsError, normalizeEmail, type Account, type StudioStore } from '../store.ts'
import { accountColumns, accountOf, all, isUniqueViolation, one, type AccountRow } from './postgres-rows.ts'

type AccountsPart = Pick<
  StudioStore,
  | 'countAccounts'
  | 'createAccount'
  | 'findAccountByEmail'
  | 'findAccount'
  | 'listAccounts'
  | 'changeAccess'
  | 'grantLaunch'
  | 'setPassword'
  | 'setTotpSecret'
  | 'removeAccount'
  | 'useTotpStep'
>

async function accountWhere(db: SqlQueryable, condition: string, params: unknown[]): Promise<Account | undefined> {
  const row = await one<AccountRow>(
    db,
    `SELECT ${accountColumns} FROM public.studio_accounts a WHERE ${condition}`,
    params,
  )
  return row ? accountOf(row) : undefined
}

/** Inserts an account without a password; AccountExistsError when the address has one. */
async function insertAccount(db: SqlQueryable, input: Parameters<StudioStore['createAccount']>[0], now: Date) {
  const address = normalizeEmail(input.email)
  try {
    const row = await one<AccountRow>(
      db,
      `INSERT INTO public.studio_accounts AS a (email, role, launches, sessions_valid_after, invited_at) VALUES ($1, $2, $3::jsonb, $4, $4)
       RETURNING ${accountColumns}`,
      [address, input.role, input.launches ? JSON.stringify(input.launches) : null, now.toISOString()],
    )
    return accountOf(row!)
  } catch (error) {
    if (isUniqueViolation(error)) throw new AccountExistsError(`${address} already has an account.`)
    throw error
  }
}

/** The accounts part of the studio's PostgreSQL store: who has access, their role, password and second factor. */
export function postgresAccounts(db: SqlQueryable): AccountsPart {
  return {
    countAccounts: async () =>
      (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM public.studio_accounts'))!.n,
    createAccount: (input, now) => insertAccount(db, input, now),
    findAccountByEmail: (email) => accountWhere(db, 'a.email = $1', [normalizeEmail(email)]),
    findAccount: (id) => accountWhere(db, 'a.id = $1', [id]),
    listAccounts: async () =>
      (
        await all<AccountRow>(db, `SELECT ${accountColumns} FROM public.studio_accounts a ORDER BY a.email COLLATE "C"`)
      ).map(accountOf),
    async changeAccess(id, { role, launches }, now) {
      // Voiding by the stamp as well as deleting ends a session that a request in flight is creating right now.
      await db.query(
        `WITH changed AS (
           UPDATE public.studio_accounts SET role = $2, launches = $3::jsonb, sessions_valid_after = $4 WHERE id = $1 RETURNING id
         )
         DELETE FROM public.studio_sessions WHERE account_id = $1`,
        [id, role, launches ? JSON.stringify(launches) : null, now.toISOString()],
      )
    },
    async grantLaunch(id, launch) {
      await db.query(
        `UPDATE public.studio_accounts SET launches = launches || jsonb_build_array($2::text)
         WHERE id = $1 AND launches IS NOT NULL AND NOT launches ? $2`,
        [id, launch],
      )
    },
    async setPassword(id, passwordHash, now) {
      await db.query(
        `WITH changed AS (
           UPDATE public.studio_accounts SET password_hash = $2, sessions_valid_after = $3 WHERE id = $1 RETURNING id
         ), ended AS (
           DELETE FROM public.studio_sessions WHERE account_id = $1
         )
         UPDATE public.studio_links SET used_at = $3 WHERE account_id = $1 AND used_at IS NULL`,
        [id, passwordHash, now.toISOString()],
      )
    },
    async setTotpSecret(id, secret, _now, keepSession) {
      await db.query(
        `WITH changed AS (
           UPDATE public.studio_accounts SET totp_secret = $2 WHERE id = $1 RETURNING id
         )
         DELETE FROM public.studio_sessions WHERE account_id = $1 AND id_hash IS DISTINCT FROM $3`,
        [id, secret ?? null, keepSession ?? null],
      )
    },
    async useTotpStep(id, step) {
      const rows = await all(
        db,
        'UPDATE public.studio_accounts SET totp_step = $2 WHERE id = $1 AND (totp_step IS NULL OR totp_step < $2) RETURNING id',
        [id, step],
      )
      return rows.length === 1
    },
    async removeAccount(id) {
      // Its links and sessions go with it (ON DELETE CASCADE).
      await db.query('DELETE FROM public.studio_accounts WHERE id = $1', [id])
    },
  }
}
