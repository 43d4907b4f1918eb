// The studio accounts' mail (../store.ts): an invitation or a reset link, queued in the outbox as a message of no lead
// (kind 'account', lead_id null) so it is sent, retried and counted like every other message, and the request that
// asked for it answers at once. Implemented side by side here: sqlite-account-mail.ts,
// postgres-account-mail.ts.

/** The accounts' part of a LeadStore; `Mail` is store.ts's OutgoingMail. */
export interface AccountMailStore<Mail> {
  /**
   * Queues one finished message to a studio account (its link inside): sent by the outbox worker, never kept from an
   * address on the suppression list (it is the account's own, not marketing).
   */
  queueAccountMail(mail: Mail, now: Date): Promise<void>
}
