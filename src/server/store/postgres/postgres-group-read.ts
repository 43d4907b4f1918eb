// Lookups by key that arrive together go to PostgreSQL as one statement: a registration asks whether its address
// withdrew and whether it is on the suppression list (follow-ups.ts), and under load dozens ask at once. One statement
// a lookup was two of the three a registration cost PostgreSQL (its parse, plan and round trip each time, and a
// write and a wake-up on both sides); one for the lookups of an event-loop turn is a fraction of that. Web-standard
// only: the Deno function runs it too.

/** Runs `run` after the I/O callbacks of this event-loop turn (Node's setImmediate), or soon where there is none. */
const afterThisTurn: (run: () => void) => void =
  typeof setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0)

/**
 * Whether keys are present, asked together: `find` gets the distinct keys waiting and answers those present. The keys
 * asked during one event-loop turn go in one call; while `maxInFlight` calls are out, new keys wait for one to end.
 * A failed call fails each of its keys' lookups (nothing is guessed).
 */
export function createGroupRead(
  find: (keys: string[]) => Promise<Iterable<string>>,
  maxInFlight = 4,
): (key: string) => Promise<boolean> {
  let waiting = new Map<string, Array<{ resolve: (found: boolean) => void; reject: (error: unknown) => void }>>()
  let inFlight = 0
  let scheduled = false
  function flush(): void {
    scheduled = false
    if (inFlight >= maxInFlight || waiting.size === 0) return
    const asked = waiting
    waiting = new Map()
    inFlight++
    find([...asked.keys()])
      .then(
        (found) => {
          const present = new Set(found)
          for (const [key, callers] of asked) for (const caller of callers) caller.resolve(present.has(key))
        },
        (error: unknown) => {
          for (const callers of asked.values()) for (const caller of callers) caller.reject(error)
        },
      )
      .finally(() => {
        inFlight--
        flush()
      })
  }
  return (key) =>
    new Promise((resolve, reject) => {
      const callers = waiting.get(key)
      if (callers) callers.push({ resolve, reject })
      else waiting.set(key, [{ resolve, reject }])
      if (!scheduled && inFlight < maxInFlight) {
        scheduled = true
        afterThisTurn(flush)
      }
    })
}
