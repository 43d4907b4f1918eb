// The once-a-day part of the store contract (store.ts): which day a job ran, kept in the database's daily_runs (the
// same claim the Node servers' retention uses on PostgreSQL), so a day's mail is queued once, whatever the number of
// servers on one database or of restarts. SQLite keeps the same table (schema version 14).

/** A message for no lead (kind 'summary'), queued once a day. `Mail` is store.ts's OutgoingMail. */
export interface DailyMailStore<Mail> {
  /**
   * Claims `day`'s run of `job` (day as YYYY-MM-DD) and queues `mail` with it, in one transaction: true when this call
   * claimed the day, false when it was claimed before (by this server, another on the same database, or before a
   * restart) and nothing was queued.
   */
  queueDailyMail(job: string, day: string, mail: Mail, now: Date): Promise<boolean>
  /** Whether `day`'s run of `job` was claimed (a server skips composing what another already sent). */
  hasDailyRun(job: string, day: string): Promise<boolean>
}
