import type { AddressKey, LeadSelector, LeadStore } from './store.ts'

/** What an erasure removed, in counts: never the data. */
export type ErasureReport = { leads: number; messages: number; emlFiles: number; suppressed: number }

/** Where the data of a lead lives besides the store, and how withdrawn addresses are keyed. */
export type ErasureTarget = {
  store: LeadStore
  keyOf: (email: string) => Promise<AddressKey>
  /**
   * Removes the copies of the erased messages kept outside the store (the Node server's .eml files in
   * DATA_DIR/outbox: delivery/eml-mailer.ts removeEmlCopies) and says how many; undefined where none are kept.
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
