/**
 * The outbox worker's sends in flight (../outbox.ts): at most `limit` at once, and the work that follows them
 * (marking a batch sent) kept so a run can wait for all of it before it ends.
 */
export type Flight = {
  /** Waits for a free place; the caller then runs a task in it, or gives it back with release(). */
  slot(): Promise<void>
  /** Gives back a place taken with slot() and not used. */
  release(): void
  /** Runs a task in the place taken with slot(); the place is free again when it settles. */
  run<T>(task: () => Promise<T>): Promise<T>
  /** Keeps work the run must wait for; its failure is thrown by settle(). */
  track(work: Promise<unknown>): void
  /** Waits for every task and tracked work; throws the first tracked failure. */
  settle(): Promise<void>
}

/** A flight of at most `limit` tasks at once. */
export function createFlight(limit: number): Flight {
  let active = 0
  const waiting: Array<() => void> = []
  const tracked = new Set<Promise<unknown>>()
  let failure: { error: unknown } | undefined
  const release = () => {
    const next = waiting.shift()
    // The place passes straight to the next waiter, so a newcomer cannot take it in between.
    if (next) next()
    else active -= 1
  }
  const keep = (work: Promise<unknown>) => {
    const kept: Promise<unknown> = work
      .catch((error: unknown) => {
        failure ??= { error }
      })
      .finally(() => tracked.delete(kept))
    tracked.add(kept)
  }
  return {
    async slot() {
      if (active < limit) {
        active += 1
        return
      }
      await new Promise<void>((resolve) => waiting.push(resolve))
    },
    release,
    run(task) {
      const running = task().finally(release)
      keep(running)
      return running
    },
    track: keep,
    async settle() {
      while (tracked.size > 0) await Promise.all([...tracked])
      if (failure) {
        const { error } = failure
        failure = undefined
        throw error
      }
    },
  }
}

/** Sent messages marked a group at a time (one transaction each): a crash repeats at most those not yet marked. */
const markGroup = 32

/** Attempts at marking a group before its failure ends the run, and the wait before the second (doubling). */
const markTries = 6
const firstMarkWaitMs = 100

/**
 * `mark(ids)`, asked again after a failure (100 ms, then doubling; six tries in about 3 s): a store can be too busy to
 * take a write for a moment (SQLite's lock held past its busy timeout by the server's writer under a burst, seen at
 * 1,200 registrations a second), and a group left unmarked is sent again once its claims lapse. Marking is idempotent.
 */
async function markPatiently(mark: (ids: number[]) => Promise<void>, ids: number[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await mark(ids)
    } catch (error) {
      if (attempt >= markTries) throw error
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, firstMarkWaitMs * 2 ** (attempt - 1))
        ;(timer as { unref?: () => void }).unref?.()
      })
    }
  }
}

/**
 * A batch's sent messages, marked (`mark`) `markGroup` at a time as they go, each group's work kept by the flight;
 * flush() marks the rest. A mark that fails is tried again a few times before its failure ends the run.
 */
export function createMarks(flight: Pick<Flight, 'track'>, mark: (ids: number[]) => Promise<void>) {
  const sent: number[] = []
  const flush = async () => {
    const ids = sent.splice(0)
    if (ids.length > 0) await markPatiently(mark, ids)
  }
  return {
    add(id: number) {
      sent.push(id)
      if (sent.length >= markGroup) flight.track(flush())
    },
    flush,
  }
}
