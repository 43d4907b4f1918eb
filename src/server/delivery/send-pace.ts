/**
 * How fast the outbox worker may hand mail to its mailer: a provider's send-rate cap (MAIL_RATE_PER_SECOND), and the
 * slow-down a receiver asks for (an SMTP 421/451, Resend's 429 with Retry-After). Shared by all of one worker's parallel
 * sends; one per process (several delivery processes on one PostgreSQL each have their own).
 */

/** The sending pace of one worker. */
export type SendPace = {
  /**
   * Waits for this send's turn: at most `ratePerSecond` starts in any second, none while a slow-down is in force.
   * Resolves true when the send may go, false when a slow-down began while it waited (the caller puts it off).
   */
  take(): Promise<boolean>
  /** A send went through: the rate lowered by a slow-down climbs back, a tenth a second. */
  succeeded(): void
  /**
   * A receiver asked to slow down: no send for `afterMs` (what it asked) or, when it did not say, 1 s doubling with
   * each slow-down in a row up to a minute; after that, half the rate of the last second, climbing back.
   */
  slowDown(afterMs?: number): void
  /** When the slow-down in force ends (epoch ms), or 0 when none is. */
  pausedUntil(): number
}

/** Options of a pace: the cap (undefined: none) and the clock (tests). */
export type SendPaceOptions = { ratePerSecond?: number | undefined; now?: () => number }

const firstPauseMs = 1_000
const longestPauseMs = 60_000
// Slow-downs further apart than this are not "in a row": the next pause starts again at a second.
const quietMs = 30_000
// Above this (and no cap) the rate is as good as unlimited: a slow-down's reduction is over.
const unlimited = 10_000

/** A sleep that never keeps a process alive on its own (Node), so a stopped worker lets it exit. */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    ;(timer as { unref?: () => void }).unref?.()
  })
}

/**
 * A pace of evenly spaced starts: each send may start 1/rate s after the one before and never earlier (a late timer is
 * not caught up with a burst), so no window of one second holds more than `rate` starts.
 */
export function createSendPace(options: SendPaceOptions = {}): SendPace {
  const now = options.now ?? Date.now
  const cap = options.ratePerSecond ?? Infinity
  let rate = cap
  let nextAt = 0
  let pausedUntil = 0
  let lastSlowDown = -Infinity
  let inARow = 0
  // Start times of the last second's sends: the rate a slow-down halves.
  let recent: number[] = []

  function reserve(): number {
    const at = Math.max(now(), nextAt, pausedUntil)
    if (Number.isFinite(rate)) nextAt = at + 1000 / rate
    return at
  }

  return {
    async take() {
      const asked = now()
      const at = reserve()
      if (at > asked) await sleep(at - asked)
      if (pausedUntil > at) return false
      const t = now()
      recent.push(t)
      if (recent.length > 64 && recent[0]! < t - 1000) recent = recent.filter((s) => s >= t - 1000)
      return true
    },
    succeeded() {
      if (rate >= cap) return
      rate = Math.min(cap, rate + 0.1)
      if (!Number.isFinite(cap) && rate > unlimited) rate = Infinity
    },
    slowDown(afterMs) {
      const t = now()
      inARow = t - lastSlowDown > quietMs ? 1 : inARow + 1
      lastSlowDown = t
      const pause = afterMs ?? Math.min(longestPauseMs, firstPauseMs * 2 ** (inARow - 1))
      pausedUntil = Math.max(pausedUntil, t + pause)
      const lastSecond = recent.filter((s) => s >= t - 1000).length
      rate = Math.max(1, Math.min(rate, lastSecond) / 2)
      nextAt = Math.max(nextAt, pausedUntil)
    },
    pausedUntil: () => (pausedUntil > now() ? pausedUntil : 0),
  }
}
