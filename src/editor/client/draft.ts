/** Unsaved work kept in the browser: the text, the file version it was based on, and when it was last changed. */
export type Draft = { text: string; baseVersion: string; at: number }

const keyFor = (file: string) => `page-editor:draft:${file}`

/** The draft kept for a file, if any (a broken or foreign entry counts as none). */
export function readDraft(file: string): Draft | undefined {
  try {
    const draft = JSON.parse(localStorage.getItem(keyFor(file)) ?? 'null') as Draft | null
    return draft && typeof draft.text === 'string' && typeof draft.at === 'number' ? draft : undefined
  } catch {
    return undefined
  }
}

/** Keeps the text so a reload, a closed tab or a crash does not lose it. */
export function writeDraft(file: string, draft: Draft): void {
  try {
    localStorage.setItem(keyFor(file), JSON.stringify(draft))
  } catch {
    // Storage full or blocked: the work is still in the editor, and Save still works.
  }
}

/** Forgets the draft (after a save, or when the person discards it). */
export function clearDraft(file: string): void {
  localStorage.removeItem(keyFor(file))
}
