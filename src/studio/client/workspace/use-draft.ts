import { useCallback, useRef, useState, type RefObject } from 'react'
import type { LaunchDetail, SaveDraftResponse, StudioProblem } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import type { CodeEditor } from '../editing/code-editor.ts'
import { countProblems, formatMoment } from '../format.ts'

/** What the draft hook needs: the launch, whether this person may save, the code editorRef, and how to refresh. */
export type DraftDeps = {
  detail: LaunchDetail
  canEdit: boolean
  local: boolean
  editorRef: RefObject<CodeEditor | null>
  refreshPreview: () => Promise<void>
}

/** How the team's part (use-team.ts) saves a text (from the draft version this editor holds), and holds saving back. */
export type DraftSaver = {
  save: (text: string) => Promise<SaveDraftResponse>
  /** A refused save waits for the person's choice (Take theirs, Keep mine): typing does not save meanwhile. */
  waiting: () => boolean
  /** The draft version this editor's text is now made from (after a restore). */
  setBase: (version: number) => void
}

/** The draft: the text last saved, saving it, its problems and the status line that reports it all. */
export type Draft = {
  /** Set by use-team.ts: saves go through it once it is there. */
  saverRef: RefObject<DraftSaver | null>
  /** The text last saved (as a draft, a publish or a restore). */
  savedTextRef: RefObject<string>
  /** Saves the text as the draft (when it changed, or always for 'button'); false when it could not. */
  saveDraft: (reason: 'typing' | 'button') => Promise<boolean>
  problems: StudioProblem[]
  setProblems: (problems: StudioProblem[]) => void
  status: string
  setStatus: (status: string) => void
}

function firstStatus(detail: LaunchDetail, local: boolean): string {
  if (detail.draft) return `Draft by ${detail.draft.by}, saved ${formatMoment(detail.draft.updatedAt)}.`
  return local ? 'No draft: this is the file as it is.' : 'No draft: this is the live version.'
}

/** The launch's draft as this editor saves it: one save at a time, its problems shown in the text. */
export function useDraft({ detail, canEdit, local, editorRef, refreshPreview }: DraftDeps): Draft {
  const savedTextRef = useRef(detail.draftText ?? detail.liveText)
  const saving = useRef<Promise<boolean> | null>(null)
  const saverRef = useRef<DraftSaver | null>(null)
  const [problems, setProblems] = useState<StudioProblem[]>(detail.problems)
  const [status, setStatus] = useState(() => firstStatus(detail, local))
  const { slug } = detail

  const saveDraft = useCallback(
    async (reason: 'typing' | 'button'): Promise<boolean> => {
      const code = editorRef.current
      if (!code || !canEdit) return false
      await saving.current
      const text = code.text()
      if (text === savedTextRef.current && reason === 'typing') return true
      const saver = saverRef.current
      if (saver?.waiting()) {
        setStatus('Not saved: someone saved a newer draft. Choose Take theirs or Keep mine first.')
        return false
      }
      const run = (async () => {
        try {
          const doc = code.view.state.doc
          const result = await (saver ? saver.save(text) : studioApi.saveDraft(slug, text))
          savedTextRef.current = text
          setProblems(result.problems)
          code.showProblems(result.problems, doc)
          setStatus(
            result.problems.length
              ? `Draft saved ${formatMoment(result.savedAt)}, with ${countProblems(result.problems.length)}.`
              : `Draft saved ${formatMoment(result.savedAt)}.`,
          )
          await refreshPreview()
          return true
        } catch (e) {
          setStatus(`The draft was not saved: ${(e as Error).message} Your text is still here.`)
          return false
        }
      })()
      saving.current = run
      return run
    },
    [canEdit, editorRef, refreshPreview, slug],
  )

  return { savedTextRef, saverRef, saveDraft, problems, setProblems, status, setStatus }
}
