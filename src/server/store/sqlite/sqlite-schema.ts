// The SQLite store's schema and its upgrades (sqlite-store.ts opens a file and applies them).
import { sqliteSignInSchema } from '../sign-in-counts/sqlite-sign-in-counts.ts'
import type Database from 'better-sqlite3'
import { emailKey } from './sqlite-rows.ts'
import { impliedConsentEnd } from '../consent.ts'

// The same tables as supabase/migrations/*_leads_and_outbox.sql, in SQLite's types: timestamps are ISO 8601
// UTC text (they sort as text), JSON columns are text.
/** Schema version 1: the tables a new file starts with. */
export const schemaV1 = `
CREATE TABLE IF NOT EXISTS leads (
  id            INTEGER PRIMARY KEY,
  submission_id TEXT    NOT NULL UNIQUE,
  created_at    TEXT    NOT NULL,
  fields        TEXT    NOT NULL,
  consent_text  TEXT    NOT NULL,
  page_url      TEXT,
  referrer      TEXT,
  utm           TEXT    NOT NULL DEFAULT '{}',
  user_agent    TEXT
);
CREATE TABLE IF NOT EXISTS outbox (
  id              INTEGER PRIMARY KEY,
  lead_id         INTEGER NOT NULL REFERENCES leads(id),
  recipient       TEXT    NOT NULL,
  mail            TEXT    NOT NULL,
  status          TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT    NOT NULL,
  locked_until    TEXT,
  last_error      TEXT,
  created_at      TEXT    NOT NULL,
  sent_at         TEXT
);
CREATE INDEX IF NOT EXISTS outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS outbox_lead ON outbox (lead_id);
`

// As supabase/migrations/*_erasure_and_suppression.sql: when consent was withdrawn, and the keyed hashes of
// withdrawn addresses that outlive the erasure of their leads.
const schemaV2 = `
ALTER TABLE leads ADD COLUMN withdrawn_at TEXT;
CREATE TABLE IF NOT EXISTS suppressions (
  address_key TEXT NOT NULL PRIMARY KEY,
  created_at  TEXT NOT NULL
);
`

// As supabase/migrations/*_lead_click_ids_and_spam.sql: ad click ids and the landing path, and the honeypot flag
// (a lead caught by it is kept, apart, never notified).
const schemaV3 = `
ALTER TABLE leads ADD COLUMN click_ids TEXT NOT NULL DEFAULT '{}';
ALTER TABLE leads ADD COLUMN landing_page TEXT;
ALTER TABLE leads ADD COLUMN suspected_spam INTEGER NOT NULL DEFAULT 0;
`

// As supabase/migrations/*_consent_evidence.sql: the consent note's version, and the browser's copy when it differed.
const schemaV4 = `
ALTER TABLE leads ADD COLUMN consent_sha256 TEXT;
ALTER TABLE leads ADD COLUMN consent_reported TEXT;
`

// Version 5, as supabase/migrations/20251215000000_outbox_states.sql: message kinds (one of each a lead), the failed
// and cancelled states, failed_at, and an index for finding withdrawn addresses. SQLite cannot change a CHECK
// constraint, so the outbox is rebuilt once, rows and ids kept.
const outboxV5 = `
CREATE TABLE outbox_v5 (
  id              INTEGER PRIMARY KEY,
  lead_id         INTEGER NOT NULL REFERENCES leads(id),
  kind            TEXT    NOT NULL DEFAULT 'notification' CHECK (kind IN ('notification', 'reply', 'webhook')),
  recipient       TEXT    NOT NULL,
  mail            TEXT    NOT NULL,
  status          TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'cancelled')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT    NOT NULL,
  locked_until    TEXT,
  last_error      TEXT,
  created_at      TEXT    NOT NULL,
  sent_at         TEXT,
  failed_at       TEXT
);
INSERT INTO outbox_v5 (id, lead_id, recipient, mail, status, attempts, next_attempt_at, locked_until, last_error, created_at, sent_at)
  SELECT id, lead_id, recipient, mail, status, attempts, next_attempt_at, locked_until, last_error, created_at, sent_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v5 RENAME TO outbox;
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_lead ON outbox (lead_id);
CREATE UNIQUE INDEX outbox_lead_kind ON outbox (lead_id, kind);
`

// Version 8, as supabase/migrations/20251228000000_lead_follow_up.sql: each lead's phone in E.164 (null until the leads
// page reads it, '' when there is none), its follow-up (status, assignee) and the history of both and of its notes;
// the outbox takes any number of lead.updated webhook calls a lead (the unique index is partial). A lead's erasure
// takes its follow-up and history with it (ON DELETE CASCADE; the store turns foreign keys on).
const followUpSchema = `
CREATE INDEX IF NOT EXISTS leads_phone_unread ON leads (id) WHERE phone_e164 IS NULL;
CREATE INDEX IF NOT EXISTS leads_phone_e164 ON leads (phone_e164) WHERE phone_e164 <> '';
CREATE INDEX IF NOT EXISTS leads_email_key ON leads (${emailKey('fields')});
CREATE TABLE IF NOT EXISTS lead_follow_ups (
  lead_id    INTEGER PRIMARY KEY REFERENCES leads(id) ON DELETE CASCADE,
  status     TEXT,
  assignee   TEXT NOT NULL DEFAULT '',
  updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS lead_follow_ups_status ON lead_follow_ups (status);
CREATE INDEX IF NOT EXISTS lead_follow_ups_assignee ON lead_follow_ups (assignee);
CREATE TABLE IF NOT EXISTS lead_history (
  id         INTEGER PRIMARY KEY,
  lead_id    INTEGER NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  author     TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('status', 'assignee', 'note')),
  value      TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS lead_history_lead ON lead_history (lead_id, id);
DROP INDEX IF EXISTS outbox_lead_kind;
CREATE UNIQUE INDEX outbox_lead_kind ON outbox (lead_id, kind) WHERE recipient <> 'webhook:lead.updated';
`

// Version 10, as supabase/migrations/20251231000000_visit_counts.sql: each launch's page views and unique visitors a
// day
// (in the team's time zone) by source, counted by the Node server without cookies; no address or hash is kept.
const visitSchema = `
CREATE TABLE IF NOT EXISTS visit_counts (
  launch   TEXT    NOT NULL,
  day      TEXT    NOT NULL,
  source   TEXT    NOT NULL DEFAULT '',
  visits   INTEGER NOT NULL DEFAULT 0,
  visitors INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (launch, day, source)
);
CREATE INDEX IF NOT EXISTS visit_counts_day ON visit_counts (day);
`

/** The column names of a table. */
export function columnsOf(db: Database.Database, table: string): string[] {
  return (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name)
}

/**
 * The schema's steps after version 1, in order: the step at index i brings a file to version i + 2, in one
 * transaction with its user_version. Append a step for each change; never edit a shipped one.
 */
export const upgrades: Array<(db: Database.Database) => void> = [
  (db) => db.exec(schemaV2),
  (db) => db.exec(schemaV3),
  (db) => db.exec(schemaV4),
  (db) => upgradeForMessages(db),
  (db) => upgradeForLaunches(db),
  // Version 7, as supabase/migrations/20251226000000_sign_in_limits.sql: the sign-in limiter's counts.
  (db) => db.exec(sqliteSignInSchema),
  // Version 8, as supabase/migrations/20251228000000_lead_follow_up.sql: follow-up, history, phones in E.164 (the
  // column guarded, as version 5's: a file that already has it is upgraded all the same).
  (db) => {
    if (!columnsOf(db, 'leads').includes('phone_e164')) db.exec('ALTER TABLE leads ADD COLUMN phone_e164 TEXT')
    db.exec(followUpSchema)
  },
  // Version 9, as supabase/migrations/20251230000000_lead_phase.sql: the launch's phase a lead registered in (null
  // for a launch without phases, and on leads stored before). Guarded like version 5.
  (db) => {
    if (!columnsOf(db, 'leads').includes('phase')) db.exec('ALTER TABLE leads ADD COLUMN phase TEXT')
  },
  // Version 10: the visit counts (visitSchema above).
  (db) => db.exec(visitSchema),
  // Version 11, as supabase/migrations/20251231000500_lead_first_registered.sql: when each person first registered
  // for a launch (realtors' co-operation goes to the agent who registered the buyer first). Guarded like version 5.
  (db) => {
    if (!columnsOf(db, 'leads').includes('first_registered_at'))
      db.exec('ALTER TABLE leads ADD COLUMN first_registered_at TEXT')
    db.exec(firstRegisteredSchema)
  },
  // Version 12, as supabase/migrations/20260101000000_consent_kind.sql: each lead's consent kind and when implied
  // consent
  // ends, announcements and the outbox's 'announcement' kind (consent.ts, announcements.ts).
  (db) => upgradeForAnnouncements(db),
  // Version 13, as supabase/migrations/20260107000000_document_downloads.sql: each opening of a document link, and any
  // number of document.opened webhook calls and fresh-link replies a lead (document-downloads.ts).
  (db) => db.exec(documentsSchema),
  // Version 14, as supabase/migrations/20260108000000_roster.sql: the rosters' turns, the once-a-day runs, and an
  // outbox
  // that takes the assignee's mail and the daily summary (which has no lead). Self-contained: it reads the outbox it
  // finds, so a step before it that changed the outbox otherwise is kept.
  (db) => upgradeForRoster(db),
  // Version 15, as supabase/migrations/20260122000000_account_mail_announcement_gate.sql: the outbox takes a studio
  // account's mail (kind 'account', no lead). SQLite's announcements need no gate: their save's transaction is
  // immediate, so the daily limit's check and the insert are one step (sqlite-announcements.ts).
  (db) => upgradeForAccountMail(db),
]

/** Schema version 15: the outbox rebuilt from its own CREATE statement with the kind 'account' added, as version 14. */
function upgradeForAccountMail(db: Database.Database): void {
  rebuildOutbox(db, 'outbox_v15', "'account'", [
    [/(CHECK\s*\(\s*kind\s+IN\s*\([^)]*)\)/i, (_, kinds) => `${kinds}, 'account')`],
  ])
}

// The outbox keeps one notification, reply and lead.created call a lead; lead.updated and document.opened calls and
// fresh-link replies (their recipients) may be many. A lead's erasure takes its openings with it.
const documentsSchema = `
CREATE TABLE IF NOT EXISTS document_downloads (
  id        INTEGER PRIMARY KEY,
  lead_id   INTEGER NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
  document  TEXT    NOT NULL,
  title     TEXT    NOT NULL,
  opened_at TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS document_downloads_lead ON document_downloads (lead_id, document);
DROP INDEX IF EXISTS outbox_lead_kind;
CREATE UNIQUE INDEX outbox_lead_kind ON outbox (lead_id, kind)
  WHERE recipient NOT IN ('webhook:lead.updated', 'webhook:document.opened', 'reply:documents') AND kind <> 'announcement';
CREATE INDEX IF NOT EXISTS outbox_documents_reply ON outbox (lead_id, created_at) WHERE recipient = 'reply:documents';
`

// Each launch's round robin (follow-up.ts: NewAssignment): how many turns its roster has given. And which day a
// once-a-day job (the morning summary) ran, as PostgreSQL's daily_runs (20260104000000_node_servers.sql).
const rosterSchema = `
CREATE TABLE IF NOT EXISTS roster_turns (
  roster TEXT    NOT NULL PRIMARY KEY,
  turns  INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS daily_runs (
  job        TEXT NOT NULL,
  day        TEXT NOT NULL,
  started_at TEXT NOT NULL,
  PRIMARY KEY (job, day)
);
`

/**
 * Schema version 14. SQLite cannot drop a NOT NULL or change a CHECK in place: the outbox is rebuilt from its own
 * CREATE statement (lead_id may be null; the kinds 'assignment' and 'summary' added), rows, ids and indexes kept.
 */
function upgradeForRoster(db: Database.Database): void {
  db.exec(rosterSchema)
  rebuildOutbox(db, 'outbox_v14', "'summary'", [
    [/\blead_id(\s+)INTEGER\s+NOT NULL/i, (_, space) => `lead_id${space}INTEGER`],
    [/(CHECK\s*\(\s*kind\s+IN\s*\([^)]*)\)/i, (_, kinds) => `${kinds}, 'assignment', 'summary')`],
  ])
}

/** One change of the outbox's CREATE statement: a pattern and what its match becomes. */
type OutboxChange = [RegExp, (match: string, group: string) => string]

/**
 * Rebuilds the outbox (SQLite cannot change a column or a CHECK in place) from its own CREATE statement with `changes`
 * made, into `name` then renamed, rows, ids and indexes kept; nothing when the statement already holds `done`.
 */
function rebuildOutbox(db: Database.Database, name: string, done: string, changes: OutboxChange[]): void {
  const table = db
    .prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'outbox'")
    .get()!.sql
  if (table.includes(done)) return
  const indexes = db
    .prepare<[], { sql: string }>(
      "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox' AND sql IS NOT NULL",
    )
    .all()
  const steps: OutboxChange[] = [[/^CREATE TABLE\s+"?outbox"?/i, () => `CREATE TABLE ${name}`], ...changes]
  let rebuilt = table
  for (const [pattern, replacement] of steps) {
    if (!pattern.test(rebuilt))
      throw new Error(
        `The outbox table cannot be upgraded: its definition is not the expected one (${pattern.source}).`,
      )
    rebuilt = rebuilt.replace(pattern, replacement)
  }
  const columns = columnsOf(db, 'outbox').join(', ')
  db.exec(rebuilt)
  db.exec(
    `INSERT INTO ${name} (${columns}) SELECT ${columns} FROM outbox; DROP TABLE outbox; ALTER TABLE ${name} RENAME TO outbox;`,
  )
  for (const index of indexes) db.exec(index.sql)
}

// The outbox again (SQLite cannot change a CHECK constraint): the 'announcement' kind and its announcement, rows and
// ids kept; a lead has one of each other kind, and one message per announcement.
const outboxV12 = `
CREATE TABLE IF NOT EXISTS announcements (
  id         INTEGER PRIMARY KEY,
  key        TEXT NOT NULL UNIQUE,
  launch     TEXT NOT NULL,
  subject    TEXT NOT NULL,
  body       TEXT NOT NULL,
  author     TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS announcements_launch ON announcements (launch, created_at);
CREATE TABLE outbox_v12 (
  id              INTEGER PRIMARY KEY,
  lead_id         INTEGER NOT NULL REFERENCES leads(id),
  kind            TEXT    NOT NULL DEFAULT 'notification' CHECK (kind IN ('notification', 'reply', 'webhook', 'announcement')),
  recipient       TEXT    NOT NULL,
  mail            TEXT    NOT NULL,
  status          TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed', 'cancelled')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT    NOT NULL,
  locked_until    TEXT,
  last_error      TEXT,
  created_at      TEXT    NOT NULL,
  sent_at         TEXT,
  failed_at       TEXT,
  announcement_id INTEGER REFERENCES announcements(id)
);
INSERT INTO outbox_v12 (id, lead_id, kind, recipient, mail, status, attempts, next_attempt_at, locked_until, last_error, created_at, sent_at, failed_at)
  SELECT id, lead_id, kind, recipient, mail, status, attempts, next_attempt_at, locked_until, last_error, created_at, sent_at, failed_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_v12 RENAME TO outbox;
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_lead ON outbox (lead_id);
CREATE UNIQUE INDEX outbox_lead_kind ON outbox (lead_id, kind) WHERE recipient <> 'webhook:lead.updated' AND kind <> 'announcement';
CREATE UNIQUE INDEX outbox_announcement ON outbox (announcement_id, lead_id) WHERE announcement_id IS NOT NULL;
`

/**
 * Schema version 12. The leads stored before were made without the box: implied consent, ending six months after each
 * inquiry (computed here, not in SQL: SQLite's '+6 months' spills 31 August into March).
 */
function upgradeForAnnouncements(db: Database.Database): void {
  const leads = columnsOf(db, 'leads')
  if (!leads.includes('consent_kind'))
    db.exec(
      "ALTER TABLE leads ADD COLUMN consent_kind TEXT NOT NULL DEFAULT 'implied' CHECK (consent_kind IN ('express', 'implied'))",
    )
  if (!leads.includes('implied_until')) db.exec('ALTER TABLE leads ADD COLUMN implied_until TEXT')
  const fill = db.prepare('UPDATE leads SET implied_until = ? WHERE id = ?')
  for (const row of db
    .prepare<[], { id: number; created_at: string }>('SELECT id, created_at FROM leads WHERE implied_until IS NULL')
    .all()) {
    fill.run(impliedConsentEnd(row.created_at), row.id)
  }
  if (!columnsOf(db, 'outbox').includes('announcement_id')) db.exec(outboxV12)
}

// The same person is the same address (trimmed, lower case) within one launch (null launches are the default's).
const samePerson = (other: string, lead: string) =>
  `coalesce(${other}.launch, '') = coalesce(${lead}.launch, '') AND ${emailKey(`${other}.fields`)} = ${emailKey(`${lead}.fields`)}`

/**
 * Each lead's first-registered time, set by the database on insert (the first time this person registered for the
 * launch, or its own time), never changed after: no store path names the column, and a trigger refuses any update
 * that would (an erasure deletes the row; nothing rewrites it).
 */
const firstRegisteredSchema = `
UPDATE leads SET first_registered_at = (SELECT min(o.created_at) FROM leads o WHERE o.id = leads.id OR (${samePerson('o', 'leads')}))
  WHERE first_registered_at IS NULL;
CREATE TRIGGER IF NOT EXISTS leads_first_registered_set AFTER INSERT ON leads
BEGIN
  UPDATE leads SET first_registered_at = coalesce(
    (SELECT min(o.first_registered_at) FROM leads o WHERE o.id <> NEW.id AND o.first_registered_at IS NOT NULL AND ${samePerson('o', 'NEW')}),
    NEW.created_at)
  WHERE id = NEW.id;
END;
CREATE TRIGGER IF NOT EXISTS leads_first_registered_kept BEFORE UPDATE OF first_registered_at ON leads
  WHEN OLD.first_registered_at IS NOT NULL AND NEW.first_registered_at IS NOT OLD.first_registered_at
BEGIN
  SELECT RAISE(ABORT, 'leads.first_registered_at never changes');
END;
`

/** Schema version 5; each part guarded, so a file that already has one of them is upgraded all the same. */
function upgradeForMessages(db: Database.Database): void {
  if (!columnsOf(db, 'outbox').includes('kind')) db.exec(outboxV5)
  if (!columnsOf(db, 'leads').includes('withdrawn_at')) db.exec('ALTER TABLE leads ADD COLUMN withdrawn_at TEXT')
  db.exec(
    `CREATE INDEX IF NOT EXISTS leads_withdrawn_email ON leads (${emailKey('fields')}) WHERE withdrawn_at IS NOT NULL`,
  )
}

/**
 * Schema version 6, as supabase/migrations/20251220000000_leads_launch.sql: the launch a lead was made for (null on
 * leads stored before, which belong to the default launch: the store reads them as it), and an index for listing one
 * launch's leads by date (rowid, the id, ends every SQLite index, so it serves the (created_at, id) keyset too).
 * Guarded like version 5: a file that already has the column is upgraded all the same.
 */
function upgradeForLaunches(db: Database.Database): void {
  if (!columnsOf(db, 'leads').includes('launch')) db.exec('ALTER TABLE leads ADD COLUMN launch TEXT')
  db.exec('CREATE INDEX IF NOT EXISTS leads_launch_newest ON leads (launch, created_at)')
}
