type SchedulerWithYield = { yield?: () => Promise<void> }

/**
 * Ends the current task and resumes in a new one, so that what the browser has waiting (a tap, a key, a frame)
 * runs in between: long work split this way never blocks a phone's main thread for long. `scheduler.yield()` where
 * the browser has it (the continuation goes ahead of other queued tasks); elsewhere a message to this window's own
 * channel, which, unlike a zero timer, is neither clamped to 4 ms nor held back in background tabs.
 */
export function yieldToMain(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: SchedulerWithYield }).scheduler
  if (typeof scheduler?.yield === 'function') return scheduler.yield()
  return new Promise((resolve) => {
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      channel.port1.close()
      resolve()
    }
    channel.port2.postMessage(null)
  })
}
