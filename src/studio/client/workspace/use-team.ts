import { useEffect, type RefObject } from 'react'
import type { LaunchDetail } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import type { CodeEditor } from '../editing/code-editor.ts'
import { useDraftSafety } from '../team/use-draft-safety.ts'
import type { Draft } from './use-draft.ts'

/** What the team's part needs from the workspace: the launch, the code editor, the draft, the previews' refresh. */
export type TeamDeps = {
  detail: LaunchDetail
  canEdit: boolean
  local: boolean
  editorRef: RefObject<CodeEditor | null>
  draft: Draft
  /** The text as typed now (the code editor's). */
  text: string
  refreshPreview: () => Promise<void>
}

/**
 * The workspace's part of a team on one launch (team/use-draft-safety.ts): the draft's saves carry their version,
 * typing is kept in this browser until saved, and their draft, taken, becomes the text here as saved.
 */
export function useTeam({ detail, canEdit, local, editorRef, draft, text, refreshPreview }: TeamDeps) {
  const { slug } = detail
  const { savedTextRef, saverRef, setStatus, setProblems, saveDraft } = draft
  const team = useDraftSafety({
    slug,
    canEdit,
    local,
    openedVersion: detail.draftVersion ?? 0,
    currentText: () => editorRef.current?.text(),
    takeText: (theirs) => {
      savedTextRef.current = theirs
      editorRef.current?.replaceText(theirs)
      setStatus('Their draft is in the text now.')
      void studioApi.check(slug, theirs).then(
        ({ problems }) => {
          setProblems(problems)
          const code = editorRef.current
          code?.showProblems(problems, code.view.state.doc)
        },
        () => {},
      )
      void refreshPreview()
    },
    typeText: (mine) => editorRef.current?.replaceText(mine),
    saveNow: () => void saveDraft('button'),
  })
  useEffect(() => {
    saverRef.current = team
  })
  const { typed } = team
  useEffect(() => typed(text, savedTextRef.current), [text, typed, savedTextRef])
  return team
}
