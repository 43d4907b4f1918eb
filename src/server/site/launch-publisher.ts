/**
 * The contract between the studio (which decides who publishes what, and records versions) and the Node server's
 * site (which checks, builds and serves launches). The server implements it; the studio is given one.
 */
import type { Problem } from '../../../schema/config-problem.ts'

/** A problem of a config text in the checker's words. */
export type PublishProblem = Problem

/**
 * What a publish did: served within `ms` (with `warning` when it is served here but PUBLISH_COMMAND failed to put it
 * on the static host), or refused with the checker's problems (nothing changed then).
 */
export type PublishResult = { ok: true; ms: number; warning?: string } | { ok: false; problems: PublishProblem[] }

/** How a launch is served right now. */
export type ServedLaunch = {
  slug: string
  siteName: string
  /** The launch's page.config.json (the root one for the default launch, else launches/<slug>/page.config.json). */
  configFile: string
  /**
   * live: a good build serves; broken: its file has problems (the last good build serves, if any); unpublished: nothing
   * built yet (503).
   */
  status: 'live' | 'broken' | 'unpublished'
  /** http://<slug>.localhost:PORT/ (or localhost for the default launch). */
  localUrl: string
}

/** Puts a launch's config live. One publish at a time per launch; others wait their turn. */
export type LaunchPublisher = {
  /**
   * Checks `configText` as launch `slug`'s config (a new slug: its folder launches/<slug>/ with public/ must exist),
   * builds that launch alone into a new version folder, writes its page.config.json atomically with exactly these
   * bytes, and swaps what is served (pages and the function's contract) in one step. Resolves once it is served.
   */
  publish(slug: string, configText: string): Promise<PublishResult>
  /** Every launch, the default first. */
  list(): ServedLaunch[]
  /**
   * Serves a launch folder made while running (launches/<slug>/ with its page.config.json, by New launch), unpublished
   * (503 "not published yet") until its first publish; the launch, or undefined when there is no such folder.
   */
  add(slug: string): ServedLaunch | undefined
}
