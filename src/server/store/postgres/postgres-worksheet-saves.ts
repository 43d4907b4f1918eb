// Group commit for the PostgreSQL store's worksheets (postgres-release.ts): the worksheets that arrive while a group is
// being saved go together as the next group, one statement for all of them (so one transaction and one commit): each
// launch's counter row goes up once, by its count, under its row lock, each worksheet takes the next number of its
// launch in arrival order, and its messages are queued with it. A counter row locked once a group, not once a
// worksheet, is what lets a burst of one launch's worksheets go faster than one commit after another.
//
// The messages need the worksheet's id and number, which only the statement knows: they are composed over two marks
// (worksheet-marks.ts), and the statement writes the id and number over them. Nothing is read back from worksheets (no
// RETURNING): the Supabase function's role, lead_writer, may insert worksheets but read none of their columns
// (20260129000000_function_release.sql), so the ids come from the table's sequence, taken in the statement.
// A group whose statement fails is saved again one worksheet at a time, in arrival order, so one bad worksheet fails
// alone; a failed statement changes nothing, so it takes no number either.
import type { SqlQueryable } from '../sql-queryable.ts'
import { worksheetRecipient, type ReleaseStore, type StoredWorksheet, type WorksheetMessage } from '../release.ts'
import { storedWorksheetOf, worksheetMarks as marks } from '../worksheet-marks.ts'

type Save = Parameters<ReleaseStore['saveWorksheet']>
type Pending = {
  worksheet: Save[0]
  compose: Save[1]
  resolve(stored: StoredWorksheet): void
  reject(error: unknown): void
}

/** The most worksheets one group takes. */
const maxGroup = 200

const worksheetColumns = `i int, launch text, realtor_lead_id bigint, realtor_email text, client_name text,
  client_email text, client_phone text, choices jsonb, deposit_accepted boolean, notes text, received_at timestamptz`

// $1 the worksheets (worksheetColumns), $2 the id's mark, $3 the number's mark, $4 the messages (i, kind, recipient,
// content, the marks in recipient and content).
const groupStatement = `
WITH x AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS x (${worksheetColumns})
), wanted AS (
  SELECT launch, count(*) AS n FROM x GROUP BY launch
), counted AS (
  INSERT INTO public.worksheet_numbers (launch, last) SELECT launch, n FROM wanted
  ON CONFLICT (launch) DO UPDATE SET last = public.worksheet_numbers.last + excluded.last
  RETURNING launch, last
), numbered AS MATERIALIZED (
  SELECT x.*, c.last - w.n + row_number() OVER (PARTITION BY x.launch ORDER BY x.i) AS number,
    nextval(pg_get_serial_sequence('public.worksheets', 'id')) AS id
  FROM x JOIN wanted w ON w.launch = x.launch JOIN counted c ON c.launch = x.launch
), saved AS (
  INSERT INTO public.worksheets (id, launch, number, realtor_lead_id, realtor_email, client_name, client_email,
    client_phone, choices, deposit_accepted, notes, received_at)
  OVERRIDING SYSTEM VALUE
  SELECT id, launch, number, realtor_lead_id, realtor_email, client_name, client_email, client_phone, choices,
    deposit_accepted, notes, received_at
  FROM numbered ORDER BY i
), queued AS (
  INSERT INTO public.outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at)
  SELECT k.realtor_lead_id, m.kind, replace(m.recipient, $2, k.id::text),
    replace(replace(m.content::text, $2, k.id::text), $3, k.number::text)::jsonb, k.received_at, k.received_at
  FROM jsonb_to_recordset($4::jsonb) AS m (i int, kind text, recipient text, content jsonb) JOIN numbered k ON k.i = m.i
)
SELECT i, id, number FROM numbered`

/** The group statement's parameters: the rows, the marks, and the messages composed over the marks. */
function groupParams(saves: ReadonlyArray<{ worksheet: Save[0]; messages: WorksheetMessage[] }>): string[] {
  const rows = saves.map(({ worksheet: w }, i) => ({
    i,
    launch: w.launch,
    realtor_lead_id: w.realtorLeadId,
    realtor_email: w.realtorEmail,
    client_name: w.clientName,
    client_email: w.clientEmail,
    client_phone: w.clientPhone,
    choices: w.choices,
    deposit_accepted: w.depositAccepted,
    notes: w.notes,
    received_at: w.receivedAt,
  }))
  const messages = saves.flatMap(({ messages }, i) =>
    messages.map((m) => ({
      i,
      kind: m.kind,
      recipient: worksheetRecipient(marks.id, m.event),
      content: m.kind === 'webhook' ? m.webhook : m.mail,
    })),
  )
  return [JSON.stringify(rows), String(marks.id), String(marks.number), JSON.stringify(messages)]
}

type Composed = { pending: Pending; worksheet: Save[0]; messages: WorksheetMessage[] }

/** Stores `saves` in one statement; resolves each caller with its worksheet as stored. */
async function store(db: SqlQueryable, saves: readonly Composed[]): Promise<void> {
  const { rows } = await db.query(groupStatement, groupParams(saves))
  const given = new Map(
    (rows as Array<{ i: number; id: string | number; number: string | number }>).map((row) => [
      row.i,
      { id: Number(row.id), number: Number(row.number) },
    ]),
  )
  saves.forEach((save, i) => {
    const got = given.get(i)
    if (got) save.pending.resolve(storedWorksheetOf(save.worksheet, got))
    else save.pending.reject(new Error('A worksheet of the group was not stored.'))
  })
}

/** Composes and stores a group; each caller answered with its own worksheet, or its own failure. */
async function saveGroup(db: SqlQueryable, group: Pending[]): Promise<void> {
  const saves: Composed[] = []
  for (const pending of group) {
    try {
      const messages = pending.compose(storedWorksheetOf(pending.worksheet))
      saves.push({ pending, worksheet: pending.worksheet, messages })
    } catch (error) {
      pending.reject(error)
    }
  }
  if (saves.length > 1) {
    try {
      await store(db, saves)
      return
    } catch {
      // One statement: nothing of the group was stored and no number taken. Each is saved alone below.
    }
  }
  // One after another, so the numbers still follow the order the worksheets came in.
  for (const save of saves) await store(db, [save]).catch((error: unknown) => save.pending.reject(error))
}

/**
 * The worksheet saves of a PostgreSQL database: `save` answers once the group holding the worksheet is committed.
 * `compose` writes the id and number as their digits (worksheet-marks.ts).
 */
export function createPostgresWorksheetSaves(db: SqlQueryable): ReleaseStore['saveWorksheet'] {
  let queue: Pending[] = []
  let saving = false
  function next(): void {
    if (saving || queue.length === 0) return
    const group = queue.slice(0, maxGroup)
    queue = queue.slice(maxGroup)
    saving = true
    void saveGroup(db, group).finally(() => {
      saving = false
      next()
    })
  }
  return (worksheet, compose) =>
    new Promise((resolve, reject) => {
      queue.push({ worksheet, compose, resolve, reject })
      // The worksheets of this task go together, or with those arriving while a group is saved (a microtask, not
      // setImmediate: the Deno function runs this too).
      if (queue.length === 1) queueMicrotask(next)
    })
}
