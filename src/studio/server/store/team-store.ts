import type { DraftHead } from '../../protocol.ts'

/**
 * The studio store's part for a team editing one launch: each draft save gets the launch's next draft version (kept
 * when the draft is published or discarded, so a number is never given twice), a save made from an older version is
 * refused, and each open editor's heartbeat says who has the launch open. SQLite: sqlite-team.ts; PostgreSQL:
 * postgres-team.ts (supabase/migrations/20260121000000_studio_team.sql).
 */
export type TeamStore = {
  /** The launch's latest draft version: who saved it and when; undefined when no draft was ever saved. */
  draftHead(launch: string): Promise<DraftHead | undefined>
  /**
   * Saves the draft as the launch's next version if `baseVersion` is still its latest (0: none yet; undefined: saved
   * whatever the latest is), in one step; returns the new version, or undefined when a newer one was saved meanwhile.
   */
  saveDraftFrom(
    launch: string,
    text: string,
    by: string,
    now: Date,
    baseVersion: number | undefined,
  ): Promise<number | undefined>
  /** Notes that `editor` (a random id per open editor) of person `who` has the launch open now. */
  markPresent(launch: string, editor: string, who: string, now: Date): Promise<void>
  /** The editors with the launch open whose last heartbeat came after `after`, earliest first. */
  listPresent(launch: string, after: Date): Promise<Array<{ editor: string; who: string; since: string }>>
  /** The editor was closed: forgotten at once (only by the person it belongs to). */
  forgetPresent(launch: string, editor: string, who: string): Promise<void>
}

/** Heartbeats older than this are deleted at the next heartbeat of anyone: presence is never history. */
export const presenceKeptMs = 60 * 60 * 1000
