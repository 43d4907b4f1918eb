/**
 * The studio's HTTP protocol: the JSON its browser part and its server part exchange under /studio/api. Both sides
 * import these types; the server is the only one that decides (roles, launches an account may touch, problems).
 * Every state-changing call is a POST/PUT/DELETE with a JSON body, a session cookie and a same-origin `Origin`.
 */

import type { ClientPageConfig } from '../../schema/page-config.ts'

/** Who may do what: owner (everything, people included), editor (edit, publish, restore, new launch), sales (leads). */
export type Role = 'owner' | 'editor' | 'sales'

/** A problem of a config text, in the checker's words (the same as `npm run validate`). */
export type StudioProblem = { line: number; column: number; where: string; message: string; fix?: string | undefined }

/**
 * GET /studio/api/launches/:slug/preview and /studio/api/preview/:token: what a preview frame renders (the draft when
 * it has no problems, else the live text; null when neither is without problems), the draft's problems, and the
 * address of its form's compiled validator.
 */
export type PreviewResponse = {
  config: ClientPageConfig | null
  problems: StudioProblem[]
  validatorUrl: string
  phases?: PreviewPhases | undefined
}

/**
 * A launch's phases as the preview shows them: which one it renders (`shown`: the one asked for, else the one in force
 * now), the one in force now (`live`), and each phase in order with its name in the team's words and when it starts.
 * Absent for a config without phases.
 */
export type PreviewPhases = {
  shown: string
  live: string
  /** The time zone the start times are read in (launch.timeZone, else the server's NOTIFY_TIME_ZONE). */
  timeZone: string
  list: Array<{ name: string; words: string; starts?: string | undefined }>
  /**
   * The anchors of the sections the shown phase hides: the editor's preview keeps them (dimmed, to show them again),
   * a preview link leaves them out as the live page does.
   */
  hidden: string[]
}

/**
 * GET /studio/api/me: the signed-in person. `launches` absent: every launch. `local`: the studio of `npm run edit`,
 * one person on this computer, where publishing saves the launch's file (and builds nothing).
 */
export type MeResponse = {
  email: string
  role: Role
  launches?: string[] | undefined
  totp: boolean
  local?: boolean | undefined
}

/**
 * Local mode (`npm run edit`): the meta tag of the studio's page holding its token, and the header that sends it back.
 */
export const localTokenMeta = 'editor-token'
export const localTokenHeader = 'x-editor-token'

/** A draft of a launch's config, kept in the store until it is published or discarded. */
export type DraftInfo = { by: string; updatedAt: string }

/** One launch as the studio lists it (GET /studio/api/launches). */
export type LaunchSummary = {
  slug: string
  siteName: string
  /**
   * live: a published version serves; broken: the file on disk has problems (the last good version serves);
   * unpublished: none yet.
   */
  status: 'live' | 'broken' | 'unpublished'
  localUrl: string
  draft?: DraftInfo | undefined
  liveVersion?: number | undefined
  /** The file on disk differs from the live version (a developer changed it): shown, never overwritten silently. */
  changedOnDisk?: boolean | undefined
}

/**
 * GET /studio/api/launches/:slug: what the editor opens with (the draft's text when there is one). `draftVersion`: the
 * launch's latest draft version (0: none was ever saved), the version the editor's next save is made from.
 */
export type LaunchDetail = LaunchSummary & {
  liveText: string
  draftText?: string | undefined
  draftVersion?: number | undefined
  problems: StudioProblem[]
}

/**
 * PUT /studio/api/launches/:slug/draft, body. `baseVersion`: the draft version the text was made from; a save over a
 * newer one is refused (409, StudioError.conflict) rather than replacing someone else's work.
 */
export type SaveDraftRequest = { text: string; baseVersion?: number | undefined }
/** Its answer: saved (always, problems or not: work is never lost), as `version`, with the text's problems. */
export type SaveDraftResponse = { savedAt: string; problems: StudioProblem[]; version?: number | undefined }

/** The latest draft version of a launch: its number, who saved it and when. */
export type DraftHead = { version: number; by: string; savedAt: string }
/**
 * A refused save's reason: the newer draft version and its text (the live text when that draft was published since).
 */
export type DraftConflict = DraftHead & { text: string }

/** POST /studio/api/launches/:slug/presence, body: this open editor's random id (a heartbeat every few seconds). */
export type PresenceRequest = { editor: string }
/** Its answer: who else has the launch open in an editor now, and the launch's latest draft version. */
export type PresenceResponse = { others: Array<{ who: string; since: string }>; draft?: DraftHead | undefined }

/** POST /studio/api/launches/:slug/check, body { text }: the problems, nothing saved. */
export type CheckResponse = { problems: StudioProblem[] }

/** POST /studio/api/launches/:slug/publish, body: the text to publish (default the draft) and an optional message. */
export type PublishRequest = { text?: string | undefined; message?: string | undefined }
/**
 * 200: published and served (`warning`: served here, but PUBLISH_COMMAND could not put it on the static host).
 * 422: { problems } and nothing changed.
 */
export type PublishResponse = { version: number; ms: number; warning?: string | undefined }

/** One published version (GET /studio/api/launches/:slug/versions, newest first). */
export type VersionSummary = {
  version: number
  at: string
  by: string
  message?: string | undefined
  fromDisk: boolean
  restoredFrom?: number | undefined
}
/** GET /studio/api/launches/:slug/versions/:version: its exact text and a unified diff against the one before. */
export type VersionDetail = VersionSummary & { text: string; diff: string }
/** POST /studio/api/launches/:slug/versions/:version/restore: publishes that text again as a new version. */
export type RestoreResponse = PublishResponse

/**
 * POST /studio/api/launches/:slug/preview-link: a signed, read-only, expiring link to the draft (in one phase, if
 * asked).
 */
export type PreviewLinkResponse = { url: string; expiresAt: string; phase?: string | undefined }
/** A preview link as the studio lists it (never its token: that was shown once, to its maker). */
export type PreviewLinkSummary = {
  id: number
  phase?: string | undefined
  madeBy: string
  createdAt: string
  expiresAt: string
}
/** The body of POST …/preview-link: the phase the link shows (absent: whichever is in force when it is opened). */
export type PreviewLinkRequest = { phase?: string | undefined }

/**
 * POST /studio/api/launches (editor, owner): a new launch copied from another one (`from`), with the things that
 * belong to the old development replaced by these. `slug` empty: made from the name. `domain`: a host name
 * (mapleridge.example.com) or the canonical address (https://mapleridge.example.com/). A refusal names the fields
 * it is about (StudioError.fields).
 */
export type NewLaunchRequest = {
  from: string
  name: string
  slug?: string | undefined
  phone: string
  email: string
  address: string
  domain: string
  notifyEmail: string
  replyFrom: string
}
/** A development's name made a launch's short name (slug), as both sides make it: "Maple Ridge" → "maple-ridge". */
export function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63)
    .replace(/-+$/, '')
}

/** 201: made, unpublished, listed; open it with GET /studio/api/launches/:slug. */
export type NewLaunchResponse = { slug: string; siteName: string; localUrl: string }

/** A person with access (GET /studio/api/people, owner). */
export type Person = { email: string; role: Role; launches?: string[] | undefined; invitedAt: string; active: boolean }
/**
 * POST /studio/api/people (owner): invite; the answer carries the one-time link to copy (also e-mailed when mail is
 * set).
 */
export type InviteRequest = { email: string; role: Role; launches?: string[] | undefined }
export type InviteResponse = { link: string; expiresAt: string; emailed: boolean }

/** One line of the audit log (GET /studio/api/audit, owner). */
export type AuditEntry = {
  at: string
  who: string
  action: string
  launch?: string | undefined
  detail?: string | undefined
}

/** Any refusal: a sentence for the person, for 422 the problems, and for a form the sentence of each field at fault. */
export type StudioError = {
  error: string
  problems?: StudioProblem[] | undefined
  fields?: Record<string, string> | undefined
  conflict?: DraftConflict | undefined
}

// The Allocation page (issue 45): the board (GET /studio/api/launches/:slug/allocation, owners and sales accounts
// given the launch), the lots (GET …/lots, owners and editors) and the price list's upload (POST …/lots/import).

/** A lot of the inventory as the studio shows it; price in whole dollars. */
export type BoardLot = {
  lot: string
  release: string | null
  models: string[]
  frontage: string | null
  price: number
  status: 'available' | 'held' | 'allocated' | 'sold'
  worksheetId: number | null
}

/** A worksheet on the board, in received order (number 1, 2, …). */
export type BoardWorksheet = {
  id: number
  number: number
  receivedAt: string
  realtorEmail: string
  clientName: string
  choices: Array<{ lot: string | null; model: string }>
  outcome: 'received' | 'allocated' | 'waitlisted' | 'declined'
  allocatedLot: string | null
  allocatedModel: string | null
  reason: string | null
}

/** GET …/allocation. */
export type AllocationBoard = { worksheets: BoardWorksheet[]; lots: BoardLot[] }

/** One proposal of "Allocate in order": a lot for a worksheet, or the waitlist; it holds nothing until confirmed. */
export type BoardProposal =
  | { worksheetId: number; number: number; lot: string; model: string; choice: number; price: number }
  | { worksheetId: number; number: number; waitlist: true }

/** POST …/allocation/confirm: each proposal's outcome, in order (a refused one with its sentence). */
export type ConfirmResponse = {
  outcomes: Array<{ worksheetId: number; ok: true } | { worksheetId: number; ok: false; status: number; error: string }>
}

/** POST …/lots/import: what the price list did, and each refused row's line and column. */
export type InventoryImportResponse = {
  created: number
  changed: number
  unchanged: number
  keptAllocated: string[]
  rows: number
  problems: Array<{ line: number; column: string | null; message: string }>
}
