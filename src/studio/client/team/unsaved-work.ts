// A person's unsaved text, kept in this browser's localStorage per launch and person, so a closed tab, a crash or a
// lost connection loses nothing: offered back on the next open, cleared once the text is saved.

/** Unsaved text as kept: the text, the draft version it was made from, and when it was last typed (ISO 8601). */
export type UnsavedWork = { text: string; baseVersion: number; at: string }

const prefix = 'vip-studio:unsaved:'

/** The storage key of one person's unsaved work on one launch. */
export function unsavedKey(slug: string, who: string): string {
  return `${prefix}${slug}:${who}`
}

/** The unsaved work kept under `key`, if any (a damaged entry counts as none). */
export function readUnsaved(storage: Storage, key: string): UnsavedWork | undefined {
  try {
    const value = JSON.parse(storage.getItem(key) ?? 'null') as Partial<UnsavedWork> | null
    if (typeof value?.text !== 'string' || typeof value.baseVersion !== 'number' || typeof value.at !== 'string')
      return undefined
    return { text: value.text, baseVersion: value.baseVersion, at: value.at }
  } catch {
    return undefined
  }
}

/** Keeps unsaved work; a full or refused storage keeps nothing and says so by returning false. */
export function keepUnsaved(storage: Storage, key: string, work: UnsavedWork): boolean {
  try {
    storage.setItem(key, JSON.stringify(work))
    return true
  } catch {
    return false
  }
}

/** Forgets the unsaved work under `key` (it was saved, taken back, or turned down). */
export function clearUnsaved(storage: Storage, key: string): void {
  try {
    storage.removeItem(key)
  } catch {
    // Storage refused (private mode): there is nothing kept to clear.
  }
}
