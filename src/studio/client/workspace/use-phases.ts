import { useState, type RefObject } from 'react'
import type { PreviewLinkResponse } from '../../protocol.ts'
import { replaceValue } from '../../../config/json-edit.ts'
import { studioApi } from '../api.ts'
import type { CodeEditor } from '../editing/code-editor.ts'
import type { Draft } from './use-draft.ts'
import type { PreviewBridge } from './use-preview-bridge.ts'

/** What the phase and link actions need. */
export type PhaseDeps = { slug: string; editorRef: RefObject<CodeEditor | null>; draft: Draft; bridge: PreviewBridge }

/** The phase shown in the previews, making it the current one, and the read-only preview link of the draft. */
export function usePhases({ slug, editorRef, draft, bridge }: PhaseDeps) {
  const [link, setLink] = useState<PreviewLinkResponse>()
  const { setStatus, saveDraft } = draft

  const makeLink = async () => {
    try {
      await saveDraft('typing')
      setLink(await studioApi.previewLink(slug, bridge.askedPhaseRef.current))
    } catch (e) {
      setStatus(`No preview link: ${(e as Error).message}`)
    }
  }
  const showPhase = (name: string) => {
    setLink(undefined)
    void bridge.showPhase(name)
  }
  const makeCurrent = async (name: string) => {
    const code = editorRef.current
    if (!code) return
    try {
      code.updateText(replaceValue(code.text(), ['phases', 'current'], JSON.stringify(name)))
    } catch (e) {
      setStatus(`The phase could not be changed in the text: ${(e as Error).message}`)
      return
    }
    // Saved now rather than by the typing timer, whose "Draft saved" would replace the words below a moment later.
    if (await saveDraft('button')) setStatus(`"current" is now "${name}" in the text: publish to put that phase live.`)
  }
  return { link, makeLink, showPhase, makeCurrent }
}
