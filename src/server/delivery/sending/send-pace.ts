/**
 * How fast the outbox worker may hand mail to its mailer: a provider's send-rate cap (MAIL_RATE_PER_SECOND), and the
 * slow-down a receiver asks for (an SMTP 421/451, Resend's 429 with Retry-After). Shared by all of one worker's
 * parallel sends; one per process (several delivery processes on one PostgreSQL each have their own).
 */

/** The sending pace of one worker. */
export type SendPace = {
  /**
   * Waits for the next send's turn (one caller at a time): resolves with the function to call when that send is over
   * (`ok`: it went), or undefined when a slow-down is in force (the caller puts the message off).
   */
  take(): Promise<((ok: boolean) => void) | undefined>
  /**
   * A receiver asked to slow down: no send for `afterMs` (what it asked) or, when it did not say, 1 s doubling with
   * each slow-down in a row up to a minute; after that, half the rate of the last second, climbing back a quarter of
   * a message a second with each message that goes (a quarter more each second).
   */
  slowDown(afterMs?: number): void
  /** When the slow-down in force ends (epoch ms on the pace's clock), or 0 when none is. */
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
 * A pace of evenly spaced starts, each 1/rate s after the one before and never earlier (a late timer is not caught up
 * with a burst). And a send counts against the rate from its start until one second after it is over: a new one
 * starts only while fewer than the rate are so counted. So whatever the network's delays, no second of the receiver's
 * (any window of one second, not only the clock's) holds more than `rate` messages.
 */
export function createSendPace(options: SendPaceOptions = {}): SendPace {
  const now = options.now ?? Date.now
  const cap = options.ratePerSecond ?? Infinity
  let rate = cap
  let nextAt = 0
  let pausedUntil = 0
  let lastSlowDown = -Infinity
  let inARow = 0
  let inFlight = 0
  // When the last second's sends ended, oldest first (only while there is a rate to keep).
  const ended: number[] = []
  // When the last second's sends started: the rate a slow-down halves.
  let started: number[] = []

  /** How long the next send must wait for its turn at `t`; 0 when it may go now. */
  function waitAt(t: number): number {
    if (!Number.isFinite(rate)) return 0
    while (ended.length > 0 && ended[0]! <= t - 1000) ended.shift()
    const counted = inFlight + ended.length
    if (counted < Math.max(1, Math.floor(rate))) return Math.max(0, nextAt - t)
    return ended.length > 0 ? ended[0]! + 1000 - t : 5
  }

  function over(ok: boolean): void {
    inFlight -= 1
    if (Number.isFinite(rate)) ended.push(now())
    if (!ok || rate >= cap) return
    rate = Math.min(cap, rate + 0.25)
    if (!Number.isFinite(cap) && rate > unlimited) rate = Infinity
  }

  return {
    async take() {
      for (;;) {
        const t = now()
        if (pausedUntil > t) return undefined
        const wait = waitAt(t)
        if (wait <= 0) break
        // Looked at again at least every 50 ms: a send that ends (or a slow-down) changes the answer.
        await sleep(Math.min(wait, 50))
      }
      const t = now()
      if (Number.isFinite(rate)) nextAt = t + 1000 / rate
      started.push(t)
      if (started.length > 64 && started[0]! < t - 1000) started = started.filter((s) => s >= t - 1000)
      inFlight += 1
      let done = false
      return (ok) => {
        if (done) return
        done = true
        over(ok)
      }
    },
    slowDown(afterMs) {
      const t = now()
      // The sends already out when the receiver first said so meet the same answer: one slow-down, not several in a
      // row (only a Retry-After that asks for longer lengthens it).
      if (t < pausedUntil) {
        if (afterMs !== undefined) pausedUntil = Math.max(pausedUntil, t + afterMs)
        return
      }
      inARow = t - lastSlowDown > quietMs ? 1 : inARow + 1
      lastSlowDown = t
      const pause = afterMs ?? Math.min(longestPauseMs, firstPauseMs * 2 ** (inARow - 1))
      pausedUntil = Math.max(pausedUntil, t + pause)
      const lastSecond = started.filter((s) => s >= t - 1000).length
      rate = Math.max(1, Math.min(rate, lastSecond) / 2)
    },
    pausedUntil: () => (pausedUntil > now() ? pausedUntil : 0),
  }
}
