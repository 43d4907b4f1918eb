// The erasure's part of the store contract (store.ts: erasure/sqlite-erasure.ts, erasure/postgres-erasure.ts), and the
// erasure everywhere a lead is kept that `npm run leads:erase` and the retention period run.
import type { AddressKey } from './suppression.ts'

/**
 * Which leads to erase: every lead of an e-mail address (case-insensitive), one submission, or all stored before a
 * time.
 */
export type LeadSelector = { email: string } | { submissionId: string } | { createdBefore: Date }

/** What an erasure removed: counts for the person running it, and the message ids whose .eml copies must go too. */
export type ErasureResult = {
  leads: number
  messages: number
  /** Addresses newly put on the suppression list (leads that had withdrawn their consent). */
  suppressed: number
  messageIds: string[]
}

/** The erasure's part of a LeadStore. */
export interface ErasureStore {
  /** How many leads, and notifications of theirs, an erasure with this selector would remove. */
  countErasable(selector: LeadSelector): Promise<{ leads: number; messages: number }>
  /**
   * Removes the selected leads and their notifications in one transaction. A lead that had withdrawn its consent
   * leaves its address's key (from `keyOf`) on the suppression list, so erasing it never makes it contactable again.
   * SQLite also overwrites the freed bytes and empties its WAL.
   */
  eraseLeads(selector: LeadSelector, keyOf: (email: string) => Promise<AddressKey>): Promise<ErasureResult>
}

/** What an erasure removed, in counts: never the data. */
export type ErasureReport = { leads: number; messages: number; emlFiles: number; suppressed: number }

/** Where the data of a lead lives besides the store, and how withdrawn addresses are keyed. */
export type ErasureTarget = {
  store: Pick<ErasureStore, 'eraseLeads'>
  keyOf: (email: string) => Promise<AddressKey>
  /**
   * Removes the copies of the erased messages kept outside the store (the Node server's .eml files in
   * DATA_DIR/outbox: delivery/mailers/eml-mailer.ts removeEmlCopies) and says how many; undefined where none are kept.
   */
  removeCopies?: ((messageIds: string[], address: string | undefined) => Promise<number>) | undefined
}

/**
 * Erases the selected leads everywhere they are kept: the lead, its queued or sent notifications, and their .eml
 * copies. Used by `npm run leads:erase` and by the retention period.
 */
export async function eraseEverywhere(target: ErasureTarget, selector: LeadSelector): Promise<ErasureReport> {
  const result = await target.store.eraseLeads(selector, target.keyOf)
  const address = 'email' in selector ? selector.email : undefined
  const emlFiles = target.removeCopies ? await target.removeCopies(result.messageIds, address) : 0
  return { leads: result.leads, messages: result.messages, emlFiles, suppressed: result.suppressed }
}
