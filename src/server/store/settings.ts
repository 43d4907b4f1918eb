import type { Variable } from '../settings/read-settings.ts'

/**
 * The store room's settings: the data folder (SQLite), how long leads are kept, the PostgreSQL addresses, and
 * the suppression list's key.
 * Each: its JSON Schema and default, its description (.env.example, docs/deploy.md) and the plain words of its
 * problem (`fix`, `expected`); src/server/env.ts reads them.
 */
export const storeSettings = {
  DATA_DIR: {
    type: 'string',
    default: '.data',
    description:
      'Where the Node server keeps leads.sqlite, its lock and the .eml outbox; npm run leads:export reads it.',
    fix: 'name a folder',
  },
  RETENTION_DAYS: {
    type: 'integer',
    minimum: 1,
    maximum: 36_500,
    description:
      'Days a registration is kept: older ones are erased (with their notifications and .eml copies) at start and once a day. Unset: kept until erased by hand (npm run leads:erase).',
    fix: 'use a whole number of days from 1 to 36500, or leave it unset to keep registrations',
  },
  DATABASE_URL: {
    type: 'string',
    format: 'postgres-url',
    secret: true,
    description:
      "The PostgreSQL to keep everything in. Node server (npm start): leads, outbox, suppression list, sign-in, visit and rate-limit counts go there instead of DATA_DIR's SQLite, as the tables' owner; several servers may share it (run npm run db:migrate first). Edge Function: connect as the least-privileged lead_writer role; wins over SUPABASE_DB_URL (the owner). npm run db:migrate, leads:erase and outbox:retry use it when set.",
    expected: 'a valid address',
    fix: 'write postgresql://lead_writer:password@host:5432/postgres',
  },
  SUPABASE_DB_URL: {
    type: 'string',
    format: 'postgres-url',
    secret: true,
    description: "The function's Postgres; Supabase sets it for deployed functions.",
    expected: 'a valid address',
    fix: 'Supabase sets it for deployed functions; elsewhere write postgresql://user:password@host:5432/postgres',
  },
  SUPPRESSION_SECRET: {
    type: 'string',
    minLength: 16,
    secret: true,
    description:
      "The key of the suppression list (keyed hashes of addresses that withdrew consent and were then erased), kept outside the database. Node server on SQLite: a key made once in DATA_DIR/suppression.key. With PostgreSQL (required with the Node server's DATABASE_URL): the same value on every Node server, for npm run leads:erase and the Edge Function, which then never replies to such an address.",
    expected: 'a usable secret',
    fix: 'use at least 16 random characters, the same every time, e.g. from `openssl rand -hex 32`',
  },
} as const satisfies Record<string, Variable>
