// What this browser remembers about the registration dialog, in localStorage only (nothing is sent): that the
// visitor registered here, or when they last closed the dialog. Where storage is blocked, nothing is remembered and
// the dialog opens by itself on every load, as on a first visit.
const storageKey = 'registration-dialog'
const dayMs = 24 * 60 * 60 * 1000

type Memory = { registered?: boolean; closedAt?: number }

function read(): Memory {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(storageKey) ?? '{}')
    return value && typeof value === 'object' && !Array.isArray(value) ? value : {}
  } catch {
    return {}
  }
}

function write(memory: Memory): void {
  try {
    localStorage.setItem(storageKey, JSON.stringify(memory))
  } catch {
    // storage blocked: the dialog simply keeps opening by itself
  }
}

/**
 * Whether the dialog should open by itself on this load: not after a registration in this browser, nor within
 * `snoozeDays` days of the visitor closing it (0: on every load).
 */
export function shouldOpenDialogByItself(snoozeDays: number, now = Date.now()): boolean {
  const memory = read()
  if (memory.registered) return false
  if (
    snoozeDays > 0 &&
    typeof memory.closedAt === 'number' &&
    now - memory.closedAt < snoozeDays * dayMs &&
    memory.closedAt <= now
  )
    return false
  return true
}

/** The visitor closed the dialog. */
export function rememberDialogClosed(now = Date.now()): void {
  write({ ...read(), closedAt: now })
}

/** A registration from this browser was accepted. */
export function rememberRegistered(): void {
  write({ ...read(), registered: true })
}
