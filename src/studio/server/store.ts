import type { Role } from '../protocol.ts'
import type { TeamStore } from './store/team-store.ts'

/**
 * What the studio keeps: accounts, one-time links, sessions, drafts, versions and the audit log. Tokens and session
 * ids are never stored, only their SHA-256 (tokens.ts), so a copy of the database signs nobody in. The SQLite
 * implementation is sqlite-store.ts; supabase/migrations/*_studio.sql has the same tables for PostgreSQL.
 */

/** A person with access. `launches` undefined: every launch. */
export type Account = {
  id: number
  email: string
  role: Role
  launches?: string[] | undefined
  /** passwords.ts's encoded scrypt hash; undefined until the person has chosen a password. */
  passwordHash?: string | undefined
  /** Base32 TOTP secret when two-factor sign-in is on. */
  totpSecret?: string | undefined
  /** Sessions started before this instant are void (a role, launch or password change). */
  sessionsValidAfter: string
  invitedAt: string
}

/** What a one-time link is for. */
export type LinkPurpose = 'invite' | 'reset'

/** A draft of a launch's config. */
export type StoredDraft = { launch: string; text: string; by: string; updatedAt: string }

/** One published version of a launch's config: its exact text. */
export type StoredVersion = {
  launch: string
  number: number
  text: string
  by: string
  at: string
  message?: string | undefined
  /** Published because the file on disk changed (a developer), not from the studio. */
  fromDisk: boolean
  restoredFrom?: number | undefined
}

/** A version to record; its number is the launch's next one. */
export type NewVersion = Omit<StoredVersion, 'number'>

/** A preview link as kept (only its token's hash): the text it shows, bound when it was made, and who made it. */
export type StoredPreviewLink = {
  id: number
  launch: string
  phase?: string | undefined
  /** The draft (or live text) it was made from: it shows this, not whatever the draft becomes. */
  text: string
  accountId: number
  madeBy: string
  createdAt: string
  expiresAt: string
  revokedAt?: string | undefined
}

/** A preview link to keep. */
export type NewPreviewLink = Omit<StoredPreviewLink, 'id' | 'madeBy' | 'revokedAt'> & { tokenHash: string }

/** One line of the audit log. */
export type StoredAudit = {
  at: string
  who: string
  action: string
  launch?: string | undefined
  detail?: string | undefined
}

/** The studio's storage. Times are Dates in, ISO 8601 UTC text out. Every method may be awaited (PostgreSQL later). */
export type StudioStore = TeamStore & {
  countAccounts(): Promise<number>
  /** Adds an account without a password; throws AccountExistsError when the address already has one. */
  createAccount(input: { email: string; role: Role; launches?: string[] | undefined }, now: Date): Promise<Account>
  findAccountByEmail(email: string): Promise<Account | undefined>
  findAccount(id: number): Promise<Account | undefined>
  listAccounts(): Promise<Account[]>
  /** Changes role and launches; every session of the account ends. */
  changeAccess(id: number, access: { role: Role; launches?: string[] | undefined }, now: Date): Promise<void>
  /**
   * Adds a launch to an account limited to some (nothing for one that has every launch); its sessions go on: access
   * only grows.
   */
  grantLaunch(id: number, launch: string): Promise<void>
  /** Sets the password hash; every session of the account ends and its unused links are voided. */
  setPassword(id: number, passwordHash: string, now: Date): Promise<void>
  /** Turns TOTP on (a secret) or off (undefined); every session but `keepSession` ends. */
  setTotpSecret(id: number, secret: string | undefined, now: Date, keepSession?: string): Promise<void>
  /** Removes the account, its sessions and its links. */
  removeAccount(id: number): Promise<void>
  /** Records a TOTP time-step as used: true only when it is later than every step the account used before. */
  useTotpStep(id: number, step: number): Promise<boolean>

  /** Stores a link by its token's hash; the account's older unused links of that purpose stop working. */
  createLink(tokenHash: string, accountId: number, purpose: LinkPurpose, now: Date, expiresAt: Date): Promise<void>
  /** How many links of a purpose the account was given since `since` (used or not). */
  countLinksSince(accountId: number, purpose: LinkPurpose, since: Date): Promise<number>
  /** The unused, unexpired link of a token hash. */
  findLink(
    tokenHash: string,
    now: Date,
  ): Promise<{ accountId: number; purpose: LinkPurpose; expiresAt: string } | undefined>
  /** Marks the link used, once: true only for the one caller that used it. */
  useLink(tokenHash: string, now: Date): Promise<boolean>

  createSession(idHash: string, accountId: number, now: Date, expiresAt: Date): Promise<void>
  /** The account of a live session: unexpired, started after the account's sessionsValidAfter. */
  findSession(idHash: string, now: Date): Promise<Account | undefined>
  endSession(idHash: string): Promise<void>

  getDraft(launch: string): Promise<StoredDraft | undefined>
  listDrafts(): Promise<StoredDraft[]>
  saveDraft(launch: string, text: string, by: string, now: Date): Promise<void>
  deleteDraft(launch: string): Promise<void>

  /** Records a version under the launch's next number and returns that number. */
  addVersion(version: NewVersion): Promise<number>
  /**
   * Records the file on disk as the launch's next version unless its latest version already has this exact text:
   * undefined then. Servers starting at once on one database record a changed file once between them.
   */
  addDiskVersion(version: NewVersion): Promise<number | undefined>
  /** Newest first, without their texts being needed (they are included all the same). */
  listVersions(launch: string): Promise<StoredVersion[]>
  getVersion(launch: string, number: number): Promise<StoredVersion | undefined>
  latestVersion(launch: string): Promise<StoredVersion | undefined>

  /** Keeps a preview link; its id. */
  createPreviewLink(link: NewPreviewLink): Promise<number>
  /** The unrevoked, unexpired preview link of a token hash whose maker still has an account. */
  findPreviewLink(tokenHash: string, now: Date): Promise<StoredPreviewLink | undefined>
  /** A launch's preview links still working, newest first. */
  listPreviewLinks(launch: string, now: Date): Promise<StoredPreviewLink[]>
  /** Revokes a launch's preview link: false when there is no such link. */
  revokePreviewLink(launch: string, id: number, now: Date): Promise<boolean>

  addAudit(entry: StoredAudit): Promise<void>
  /** Newest first. */
  listAudit(limit: number): Promise<StoredAudit[]>
  close(): void
}

/** An invitation for an address that already has an account. */
export class AccountExistsError extends Error {
  override name = 'AccountExistsError'
}

/** An address as accounts are keyed: trimmed, lower case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase()
}
