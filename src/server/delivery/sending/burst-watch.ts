/**
 * Whether the server is taking a burst of registrations: at least `perSecond` leads stored in the last second. Then
 * its delivery process sends a batch each 5 s and leaves the machine to the answers (outbox.ts, yieldToBurst): on two
 * cores, delivery at full speed beside a burst of 4,000 registrations a second took a quarter of the answers' rate
 * (its own low CPU priority does not cover what it shares besides the CPU: SQLite's write lock, the disk's flushes,
 * the caches, and on PostgreSQL the claims and marks its backends run at full priority). The burst is over once the
 * rate has stayed under half of `perSecond` for a second; the mail catches up then, as the outbox is there for.
 */
export type BurstWatch = {
  /** A lead was stored. */
  count(): void
  /** Whether a burst is on now. */
  on(): boolean
  /** Stops the watch's timer. */
  stop(): void
}

/** Registrations a second from which the server's delivery yields to them (a launch's opening, not a busy day). */
export const burstRegistrationsPerSecond = 200

const slotMs = 250
const slots = 1000 / slotMs

/** Watches the stored leads; `onChange` hears each start and end of a burst. */
export function watchBursts(onChange: (on: boolean) => void, perSecond = burstRegistrationsPerSecond): BurstWatch {
  // Leads stored in each of the last four quarters of a second; the newest first.
  const counts: number[] = Array.from({ length: slots }, () => 0)
  let burst = false
  let timer: ReturnType<typeof setInterval> | undefined

  function turn(): void {
    const lastSecond = counts.reduce((sum, n) => sum + n, 0)
    const next = burst ? lastSecond >= perSecond / 2 : lastSecond >= perSecond
    if (next !== burst) {
      burst = next
      onChange(burst)
    }
    counts.pop()
    counts.unshift(0)
    // Quiet, and nothing in the window: no timer until the next lead.
    if (!burst && counts.every((n) => n === 0)) {
      clearInterval(timer)
      timer = undefined
    }
  }

  return {
    count() {
      counts[0]! += 1
      if (timer === undefined) {
        timer = setInterval(turn, slotMs)
        timer.unref()
      }
      // The start of a burst is heard at once, not at the end of the quarter.
      if (!burst && counts.reduce((sum, n) => sum + n, 0) >= perSecond) {
        burst = true
        onChange(true)
      }
    },
    on: () => burst,
    stop() {
      clearInterval(timer)
      timer = undefined
    },
  }
}

/** The break an outbox worker takes after each batch while a burst is on (OutboxWorker.yieldToBurst). */
export type BurstBreak = {
  /** A burst began (true) or ended, which also ends a break under way. */
  set(on: boolean): void
  /** `ms` during a burst, or until it ends or `end()`; nothing otherwise. */
  take(ms: number): Promise<void>
  /** Ends a break under way (the worker stops). */
  end(): void
}

export function createBurstBreak(): BurstBreak {
  let burst = false
  let endBreak: (() => void) | undefined
  return {
    set(on) {
      burst = on
      if (!on) endBreak?.()
    },
    take(ms) {
      if (!burst) return Promise.resolve()
      return new Promise((resolve) => {
        const timeout = setTimeout(done, ms)
        function done(): void {
          clearTimeout(timeout)
          endBreak = undefined
          resolve()
        }
        endBreak = done
      })
    },
    end: () => endBreak?.(),
  }
}
