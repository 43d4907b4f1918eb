// The SQLite tables of the release (release.ts), as supabase/migrations/20260120000000_release.sql. Applied by
// sqlite-release.ts on every open (each statement idempotent), outside the lead store's numbered versions, so the
// release needs no step of its own in sqlite-schema.ts.
import type Database from 'better-sqlite3'

const tables = `
CREATE TABLE IF NOT EXISTS lots (
  id           INTEGER PRIMARY KEY,
  launch       TEXT    NOT NULL,
  lot          TEXT    NOT NULL,
  release      TEXT,
  models       TEXT    NOT NULL DEFAULT '[]',
  frontage     TEXT,
  price        INTEGER NOT NULL CHECK (price >= 0),
  status       TEXT    NOT NULL DEFAULT 'available' CHECK (status IN ('available', 'held', 'allocated', 'sold')),
  worksheet_id INTEGER,
  updated_at   TEXT    NOT NULL,
  UNIQUE (launch, lot)
);
CREATE TABLE IF NOT EXISTS worksheets (
  id               INTEGER PRIMARY KEY,
  launch           TEXT    NOT NULL,
  number           INTEGER NOT NULL,
  realtor_lead_id  INTEGER NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
  realtor_email    TEXT    NOT NULL,
  client_name      TEXT    NOT NULL,
  client_email     TEXT    NOT NULL,
  client_phone     TEXT    NOT NULL,
  choices          TEXT    NOT NULL,
  deposit_accepted INTEGER NOT NULL,
  notes            TEXT    NOT NULL DEFAULT '',
  received_at      TEXT    NOT NULL,
  outcome          TEXT    NOT NULL DEFAULT 'received' CHECK (outcome IN ('received', 'allocated', 'waitlisted', 'declined')),
  allocated_lot    TEXT,
  allocated_model  TEXT,
  reason           TEXT,
  decided_at       TEXT,
  decided_by       TEXT,
  UNIQUE (launch, number)
);
CREATE INDEX IF NOT EXISTS worksheets_realtor ON worksheets (realtor_lead_id);
CREATE INDEX IF NOT EXISTS worksheets_client ON worksheets (lower(trim(client_email)));
CREATE TRIGGER IF NOT EXISTS worksheets_received_kept BEFORE UPDATE OF received_at, number, launch ON worksheets
  WHEN NEW.received_at IS NOT OLD.received_at OR NEW.number IS NOT OLD.number OR NEW.launch IS NOT OLD.launch
BEGIN
  SELECT RAISE(ABORT, 'a worksheet''s number and received time never change');
END;
`

// The outbox keeps one notification, reply and lead.created call a lead; a worksheet's messages (recipient
// worksheet:<id>:<event>) may be many a realtor, as document.opened calls are.
const outboxIndex = `
DROP INDEX IF EXISTS outbox_lead_kind;
CREATE UNIQUE INDEX outbox_lead_kind ON outbox (lead_id, kind)
  WHERE recipient NOT IN ('webhook:lead.updated', 'webhook:document.opened', 'reply:documents') AND kind <> 'announcement'
    AND recipient NOT LIKE 'worksheet:%';
`

/** Creates the release's tables when missing, and widens the outbox's one-of-each index to leave worksheets out. */
export function applyReleaseSchema(db: Database.Database): void {
  db.transaction(() => {
    db.exec(tables)
    const index = db
      .prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = 'outbox_lead_kind'")
      .get()
    if (!index?.sql.includes('worksheet:')) db.exec(outboxIndex)
  }).immediate()
}
