/**
 * The release's part of the store (issue 45): a launch's inventory of lots (or suites), the realtors' worksheets and
 * their allocation. Both stores implement it (sqlite/sqlite-release.ts, postgres/postgres-release.ts) on the tables of
 * supabase/migrations/20260120000000_release.sql; the release room (src/server/release/) is its only caller.
 *
 * lots: launch, lot (its id: "Lot 14", "1204"), release, models (JSON array), frontage, price (whole dollars), status
 *   (available | held | allocated | sold), worksheet_id (the worksheet it was allocated to), updated_at
 * worksheets: launch, number (1, 2, … a launch, in received order), realtor_lead_id (→ leads, erased with it),
 *   realtor_email, client_name, client_email, client_phone, choices (JSON), deposit_accepted, notes, received_at
 *   (set once: a trigger refuses any change), outcome (received | allocated | waitlisted | declined), allocated_lot,
 *   allocated_model, reason, decided_at, decided_by
 * outbox: a worksheet's e-mails and webhook calls carry its realtor's lead and a recipient `worksheet:<id>:<event>`
 *   (any number a lead).
 */

/** A lot's status: only an available lot can be allocated, and only an available one is "left". */
export type LotStatus = 'available' | 'held' | 'allocated' | 'sold'

/** The statuses, in the order the import's checker names them. */
export const lotStatuses: readonly LotStatus[] = ['available', 'held', 'allocated', 'sold']

/** A lot as the price list gives it (the import's checked row). */
export type LotInput = {
  lot: string
  release: string | null
  models: string[]
  frontage: string | null
  /** Whole dollars. */
  price: number
  status: LotStatus
}

/** A lot as stored. */
export type StoredLot = LotInput & { launch: string; worksheetId: number | null; updatedAt: string }

/** What the page's counts and the worksheet form read of a lot: its id, models and status, never its price. */
export type LotModels = Pick<StoredLot, 'lot' | 'models' | 'status'>

/**
 * What an import did: lots added, lots whose price, status or details changed, and lots left alone because allocated.
 */
export type ImportCounts = { created: number; changed: number; unchanged: number; keptAllocated: string[] }

/** One choice of a worksheet: a lot with a model, or a model in any lot (lot null). */
export type WorksheetChoice = { lot: string | null; model: string }

/** What a worksheet's outcome is. */
export type WorksheetOutcome = 'received' | 'allocated' | 'waitlisted' | 'declined'

/** A worksheet as the realtor's form sends it, checked. */
export type NewWorksheet = {
  launch: string
  realtorLeadId: number
  realtorEmail: string
  clientName: string
  clientEmail: string
  clientPhone: string
  /** One to three, in order of preference. */
  choices: WorksheetChoice[]
  depositAccepted: boolean
  notes: string
  /** ISO 8601, UTC: the server's clock, never the browser's. */
  receivedAt: string
}

/** A worksheet as stored. */
export type StoredWorksheet = NewWorksheet & {
  id: number
  number: number
  outcome: WorksheetOutcome
  allocatedLot: string | null
  allocatedModel: string | null
  reason: string | null
  decidedAt: string | null
  decidedBy: string | null
}

/** A message queued with a worksheet's change, in the same transaction: an e-mail or a webhook call. */
export type WorksheetMessage =
  | { kind: 'reply' | 'notification'; event: string; mail: object }
  | { kind: 'webhook'; event: string; webhook: { id: string; body: string } }

/** A client as the realtor's worksheet page lists it: what the client typed when registering. */
export type RealtorClient = { name: string; email: string; phone: string }

/** An allocation asked for: which worksheet gets which lot with which model. */
export type Allocation = { worksheetId: number; lot: string; model: string }

/** What an allocation came to: done, or refused because the lot (or the worksheet) was taken first. */
export type AllocationResult =
  | { ok: true }
  | { ok: false; reason: 'lot-taken'; takenBy: number | null }
  | { ok: false; reason: 'lot-unknown' | 'worksheet-decided' }

/** The release's part of a store. */
export interface ReleaseStore {
  /** Adds new lots and updates the others' details, price and status, never an allocated one's; one transaction. */
  importLots(launch: string, lots: readonly LotInput[], at: string): Promise<ImportCounts>
  /** A launch's lots, by lot id (natural order: Lot 2 before Lot 10). */
  listLots(launch: string): Promise<StoredLot[]>
  /**
   * A launch's lots as the page's counts and the realtor's form read them (lot, models, status), by lot id: all the
   * function's database role (lead_writer) may read of them.
   */
  listLotModels(launch: string): Promise<LotModels[]>
  /** Changes one lot's price and status (the studio); false when it is allocated or unknown. */
  updateLot(launch: string, lot: string, change: { price?: number; status?: LotStatus }, at: string): Promise<boolean>
  /** Stores a worksheet with its number (the launch's next) and its messages, in one transaction. */
  saveWorksheet(
    worksheet: NewWorksheet,
    messages: (stored: StoredWorksheet) => WorksheetMessage[],
  ): Promise<StoredWorksheet>
  /** A launch's worksheets in received order; only one realtor's when `realtorLeadId` is given. */
  listWorksheets(launch: string, realtorLeadId?: number): Promise<StoredWorksheet[]>
  /**
   * Allocates a lot to a worksheet: the lot goes from available to allocated and the worksheet to allocated in one
   * transaction, with the messages, so two allocations of one lot at the same moment (two servers) give it once.
   */
  allocate(allocation: Allocation, by: string, at: string, messages: WorksheetMessage[]): Promise<AllocationResult>
  /** Waitlists or declines a worksheet not yet allocated, with its reason and messages; false when already decided. */
  decide(
    worksheetId: number,
    outcome: 'waitlisted' | 'declined',
    reason: string,
    by: string,
    at: string,
    messages: WorksheetMessage[],
  ): Promise<boolean>
  /**
   * A realtor's clients: the registrations of the realtor's launch whose agent (field `agent`) is the realtor's name or
   * e-mail (trimmed, any case), when no earlier realtor registration of the launch has that name or e-mail (as
   * agentRegistrationOf reads it: a client is one realtor's). In registration order, at most 500.
   */
  clientsOf(realtorLeadId: number): Promise<RealtorClient[]>
  /**
   * The realtor's first registration of the launch (isRealtor yes, the same e-mail, trimmed, any case), the one their
   * worksheets and clients belong to whichever of their registrations' links they open; the lead itself when none is
   * earlier.
   */
  firstRealtorLead(leadId: number): Promise<number>
  /**
   * The realtor registered for `launch` with this address (trimmed, any case): their first registration as a realtor
   * not suspected as spam (the one their link names), or undefined. Leads stored before leads had a launch are the
   * default launch's.
   */
  realtorOfAddress(launch: string, defaultLaunch: string, email: string): Promise<RealtorRegistration | undefined>
  /** The worksheets naming this client's address (trimmed, any case), any launch: leads:access. */
  worksheetsOfClient(email: string): Promise<StoredWorksheet[]>
  /** Erases the worksheets naming this client's address; their lots stay as they are. The number erased. */
  eraseWorksheetsOfClient(email: string): Promise<number>
}

/** A realtor's registration as a request for their link finds it: its id and the submission id the link signs. */
export type RealtorRegistration = { id: number; submissionId: string; email: string }

/** The outbox recipient of a worksheet's message: many a realtor's lead (the unique index leaves them out). */
export function worksheetRecipient(worksheetId: number, event: string): string {
  return `worksheet:${worksheetId}:${event}`
}

/** Lot ids in the order a person reads them: "Lot 2" before "Lot 10". */
export function compareLots(a: string, b: string): number {
  return lotOrder.compare(a, b)
}

// One collator for every comparison: localeCompare with options builds one per call (most of a worksheet post's CPU).
const lotOrder = new Intl.Collator('en', { numeric: true, sensitivity: 'base' })

// The release's rows as both stores read them: SQLite's text and integers, PostgreSQL's jsonb, bigint and timestamptz.

/** A lots row as either store returns it. */
export type LotRow = {
  id: number | string
  launch: string
  lot: string
  release: string | null
  models: string | string[]
  frontage: string | null
  price: number | string
  status: LotStatus
  worksheet_id: number | string | null
  updated_at: string | Date
}

/** A worksheets row as either store returns it. */
export type WorksheetRow = {
  id: number | string
  launch: string
  number: number | string
  realtor_lead_id: number | string
  realtor_email: string
  client_name: string
  client_email: string
  client_phone: string
  choices: string | WorksheetChoice[]
  deposit_accepted: number | boolean
  notes: string
  received_at: string | Date
  outcome: WorksheetOutcome
  allocated_lot: string | null
  allocated_model: string | null
  reason: string | null
  decided_at: string | Date | null
  decided_by: string | null
}

const iso = (value: string | Date): string => (value instanceof Date ? value.toISOString() : value)
const json = <T>(value: string | T): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value)

/** A stored lot from its row. */
export function lotOf(row: LotRow): StoredLot {
  return {
    launch: row.launch,
    lot: row.lot,
    release: row.release,
    models: json<string[]>(row.models),
    frontage: row.frontage,
    price: Number(row.price),
    status: row.status,
    worksheetId: row.worksheet_id === null ? null : Number(row.worksheet_id),
    updatedAt: iso(row.updated_at),
  }
}

/** Whether an import's lot says nothing new about a stored one. */
export function sameLot(stored: LotInput, lot: LotInput): boolean {
  return (
    stored.release === lot.release &&
    stored.frontage === lot.frontage &&
    stored.price === lot.price &&
    stored.status === lot.status &&
    JSON.stringify(stored.models) === JSON.stringify(lot.models)
  )
}

/** A stored worksheet from its row. */
export function worksheetOf(row: WorksheetRow): StoredWorksheet {
  return {
    id: Number(row.id),
    launch: row.launch,
    number: Number(row.number),
    realtorLeadId: Number(row.realtor_lead_id),
    realtorEmail: row.realtor_email,
    clientName: row.client_name,
    clientEmail: row.client_email,
    clientPhone: row.client_phone,
    choices: json<WorksheetChoice[]>(row.choices),
    depositAccepted: row.deposit_accepted === true || row.deposit_accepted === 1,
    notes: row.notes,
    receivedAt: iso(row.received_at),
    outcome: row.outcome,
    allocatedLot: row.allocated_lot,
    allocatedModel: row.allocated_model,
    reason: row.reason,
    decidedAt: row.decided_at === null ? null : iso(row.decided_at),
    decidedBy: row.decided_by,
  }
}

/**
 * The SQL condition "the lead `c` named the realtor `r` as its agent, and no earlier realtor registration `e` of the
 * launch has that name or e-mail"; `leads` is the leads table's name, `field(alias, name)` reads a field as text in
 * the store's dialect.
 */
export function namedAgentCondition(field: (alias: string, name: string) => string, leads: string): string {
  const agent = `lower(trim(${field('c', 'agent')}))`
  const names = (alias: string) =>
    `(lower(trim(coalesce(${field(alias, 'name')}, ''))), lower(trim(coalesce(${field(alias, 'email')}, ''))))`
  return `coalesce(c.launch, '') = coalesce(r.launch, '') AND c.id <> r.id AND ${field('c', 'agent')} IS NOT NULL
    AND ${agent} <> '' AND ${agent} IN ${names('r')}
    AND NOT EXISTS (SELECT 1 FROM ${leads} e WHERE coalesce(e.launch, '') = coalesce(r.launch, '')
      AND e.id <> r.id AND e.id <> c.id AND lower(coalesce(${field('e', 'isRealtor')}, '')) = 'yes'
      AND ${agent} IN ${names('e')} AND (e.created_at < r.created_at OR (e.created_at = r.created_at AND e.id < r.id)))`
}

/** The statement of firstRealtorLead: `?` (or $1) the lead's id; `field(alias, name)` as namedAgentCondition's. */
export function firstRealtorStatement(field: (alias: string, name: string) => string, leads: string, param: string) {
  const email = (alias: string) => `lower(trim(coalesce(${field(alias, 'email')}, '')))`
  return `SELECT o.id FROM ${leads} AS r JOIN ${leads} AS o ON coalesce(o.launch, '') = coalesce(r.launch, '')
    AND ${email('o')} = ${email('r')} AND lower(coalesce(${field('o', 'isRealtor')}, '')) = 'yes'
    WHERE r.id = ${param} ORDER BY o.created_at, o.id LIMIT 1`
}

/**
 * The statement of realtorOfAddress: `params` the three placeholders (the launch, the default launch, the address
 * trimmed and lowercased); `field(alias, name)` as namedAgentCondition's.
 */
export function realtorOfAddressStatement(
  field: (alias: string, name: string) => string,
  leads: string,
  params: [launch: string, defaultLaunch: string, email: string],
  notSpam: string,
) {
  const [launch, defaultLaunch, email] = params
  return `SELECT r.id, r.submission_id, ${field('r', 'email')} AS email FROM ${leads} AS r
    WHERE coalesce(r.launch, ${defaultLaunch}) = ${launch} AND lower(trim(coalesce(${field('r', 'email')}, ''))) = ${email}
      AND lower(coalesce(${field('r', 'isRealtor')}, '')) = 'yes' AND ${notSpam}
    ORDER BY r.created_at, r.id LIMIT 1`
}
