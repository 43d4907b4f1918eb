import { useRef, useState, type RefObject } from 'react'
import type { LaunchDetail, StudioProblem } from '../../protocol.ts'
import { StudioRequestError, studioApi } from '../api.ts'
import type { CodeEditor } from '../editing/code-editor.ts'
import type { Published } from './Banners.tsx'
import type { Draft } from './use-draft.ts'
import type { PublishWords } from './words.ts'

/** What publishing needs: the launch, the code editorRef, the draft, the words, and how to refresh the previews. */
export type PublishingDeps = {
  detail: LaunchDetail
  local: boolean
  words: PublishWords
  editorRef: RefObject<CodeEditor | null>
  draft: Draft
  refreshPreview: () => Promise<void>
}

/**
 * Publishing (or saving to the file) and restoring: the confirmation dialog and its note, what was published, what
 * blocks it, and a key that makes History load again after either.
 */
export function usePublishing({ detail, local, words, editorRef, draft, refreshPreview }: PublishingDeps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const [message, setMessage] = useState('')
  const [published, setPublished] = useState<Published>()
  const [blocking, setBlocking] = useState<StudioProblem[]>([])
  const [historyKey, setHistoryKey] = useState(0)
  const { slug } = detail
  const { setStatus, savedTextRef } = draft

  const open = () => {
    setBlocking([])
    dialog.current?.showModal()
  }
  const publish = async () => {
    const code = editorRef.current
    dialog.current?.close()
    if (!code) return
    setStatus(words.publishing)
    setPublished(undefined)
    try {
      // A save refused over someone else's newer draft publishes nothing either: the person chooses first.
      if (!(await draft.saveDraft('typing'))) return
      const result = await studioApi.publish(slug, { text: code.text(), message: message.trim() || undefined })
      savedTextRef.current = code.text()
      setPublished({ ...result, url: detail.localUrl })
      setStatus(`${words.published} ${result.version}.`)
      setMessage('')
      setHistoryKey((k) => k + 1)
    } catch (e) {
      if (e instanceof StudioRequestError && e.problems.length) {
        setBlocking(e.problems)
        draft.setProblems(e.problems)
        code.showProblems(e.problems, code.view.state.doc)
      }
      setStatus(`${words.not}: ${(e as Error).message}`)
    }
  }
  const onRestored = async (version: number, warning?: string) => {
    const fresh = await studioApi.launch(slug)
    const restored = fresh.draftText ?? fresh.liveText
    savedTextRef.current = restored
    draft.saverRef.current?.setBase(fresh.draftVersion ?? 0)
    editorRef.current?.replaceText(restored)
    draft.setProblems(fresh.problems)
    setPublished({ version, ms: 0, url: detail.localUrl, warning })
    setStatus(
      local
        ? `Restored: saved to the file again as version ${version}.`
        : `Restored: published again as version ${version}.`,
    )
    void refreshPreview()
    setHistoryKey((k) => k + 1)
  }
  return { dialog, message, setMessage, published, blocking, historyKey, open, publish, onRestored }
}
