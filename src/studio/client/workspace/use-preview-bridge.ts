import { useCallback, useEffect, useRef, useState, type RefObject } from 'react'
import type { PreviewPhases, PreviewResponse } from '../../protocol.ts'
import { launchImagesBase, studioApi } from '../api.ts'
import type { CodeEditor } from '../editing/code-editor.ts'
import type { FramePhase, FromPreview, PagePart, ToPreview } from '../editing/preview-messages.ts'
import { withStudioImages } from '../preview-config.ts'
import { replacesShownPreview, type ShownPreview } from '../editing/preview-choice.ts'

/** A page config as sent to the frames. */
export type ConfigMessage = Extract<ToPreview, { type: 'config' }>

/** The editor page's half of the preview round trip: the frames, what they show, and the phase they show. */
export type PreviewBridge = {
  framesRef: RefObject<(HTMLIFrameElement | null)[]>
  /** The launch's phases as the last preview reported them. */
  phases: PreviewPhases | undefined
  /** The phase the previews show: the one chosen above them, else (undefined) the live one. */
  askedPhaseRef: RefObject<string | undefined>
  /** Shows phase `name` in both previews from now on. */
  showPhase: (name: string) => Promise<void>
  /** The last config sent to the frames (with the studio's image addresses), if any. */
  shownRef: RefObject<ConfigMessage | null>
  post: (message: ToPreview, only?: Window) => void
  /** Asks the server for the draft's page (in the asked phase) and sends it to both frames. */
  refreshPreview: () => Promise<void>
  /** Outlines the part the cursor is in, in each frame (scrolling to it, except in the frame it was clicked in). */
  showCursorPart: (part: PagePart | null) => void
}

/** What else the bridge hears from a frame, beyond a click on a part and a (re)load. */
export type FrameListener = (message: FromPreview, source: Window) => void

type Refs = {
  framesRef: RefObject<(HTMLIFrameElement | null)[]>
  shownRef: RefObject<ConfigMessage | null>
  cursorPartRef: RefObject<PagePart | null>
  selectingFromRef: RefObject<MessageEventSource | null>
  editorRef: RefObject<CodeEditor | null>
  listenerRef: RefObject<FrameListener | undefined>
}

/** The shown phase as the canvas needs it (none for a config without phases). */
function framePhaseOf(phases: PreviewPhases | undefined): FramePhase | undefined {
  const shown = phases?.list.find((phase) => phase.name === phases.shown)
  return phases && shown ? { name: shown.name, words: shown.words, hidden: phases.hidden } : undefined
}

/** Posts a message to both frames, or to the one whose window is `only`. */
function postTo(framesRef: Refs['framesRef'], message: ToPreview, only?: Window): void {
  for (const frame of framesRef.current) {
    const target = frame?.contentWindow
    if (target && (!only || only === target)) target.postMessage(message, window.location.origin)
  }
}

/**
 * Connects the editor page to its preview frames: posts configs and the cursor's part to them, and answers their
 * messages (a click on a part puts the code editor's cursor there; `listenerRef` hears every message).
 */
export function usePreviewBridge(
  slug: string,
  editorRef: RefObject<CodeEditor | null>,
  listenerRef: RefObject<FrameListener | undefined>,
): PreviewBridge {
  const refs: Refs = {
    framesRef: useRef<(HTMLIFrameElement | null)[]>([]),
    shownRef: useRef<ConfigMessage | null>(null),
    cursorPartRef: useRef<PagePart | null>(null),
    selectingFromRef: useRef<MessageEventSource | null>(null),
    editorRef,
    listenerRef,
  }
  const { framesRef, shownRef, cursorPartRef, selectingFromRef } = refs
  const askedPhaseRef = useRef<string | undefined>(undefined)
  const shownPhaseRef = useRef<ShownPreview>(null)
  const [phases, setPhases] = useState<PreviewPhases>()
  const post = useCallback((message: ToPreview, only?: Window) => postTo(framesRef, message, only), [framesRef])

  const refreshPreview = useCallback(async () => {
    const answer: PreviewResponse | undefined = await studioApi
      .preview(slug, askedPhaseRef.current)
      .catch(() => undefined)
    // The draft has problems (or neither text is without them): the frames keep the last good text typed.
    if (!answer || !replacesShownPreview(answer, shownPhaseRef.current)) return
    shownPhaseRef.current = { phase: answer.phases?.shown }
    setPhases(answer.phases)
    const message: ConfigMessage = {
      type: 'config',
      config: withStudioImages(answer.config, launchImagesBase(slug)),
      validatorUrl: answer.validatorUrl,
      phase: framePhaseOf(answer.phases),
    }
    shownRef.current = message
    post(message)
  }, [post, shownRef, slug])

  const showPhase = useCallback(
    (name: string) => {
      askedPhaseRef.current = name
      return refreshPreview()
    },
    [refreshPreview],
  )

  const showCursorPart = useCallback(
    (part: PagePart | null) => {
      cursorPartRef.current = part
      for (const frame of framesRef.current) {
        const win = frame?.contentWindow
        if (win) post({ type: 'show', part, scroll: win !== selectingFromRef.current }, win)
      }
    },
    [cursorPartRef, framesRef, post, selectingFromRef],
  )

  useFrameMessages(refs, post, refreshPreview)
  return { framesRef, phases, askedPhaseRef, showPhase, shownRef, post, refreshPreview, showCursorPart }
}

/** Answers the frames' messages (a click on a part, a frame (re)loaded); every message also goes to the listener. */
function useFrameMessages(refs: Refs, post: PreviewBridge['post'], refreshPreview: () => Promise<void>) {
  const { framesRef, shownRef, cursorPartRef, selectingFromRef, editorRef, listenerRef } = refs
  useEffect(() => {
    const onMessage = (event: MessageEvent<FromPreview>) => {
      if (event.origin !== window.location.origin || !framesRef.current.some((f) => f?.contentWindow === event.source))
        return
      const source = event.source as Window
      if (event.data.type === 'select') {
        selectingFromRef.current = source
        editorRef.current?.goToPart(event.data.part, !event.data.keepFocus)
        selectingFromRef.current = null
      } else if (event.data.type === 'ready') {
        if (shownRef.current) post(shownRef.current, source)
        post({ type: 'show', part: cursorPartRef.current, scroll: cursorPartRef.current !== null }, source)
      }
      listenerRef.current?.(event.data, source)
    }
    window.addEventListener('message', onMessage)
    void refreshPreview()
    return () => window.removeEventListener('message', onMessage)
  }, [cursorPartRef, editorRef, framesRef, listenerRef, post, refreshPreview, selectingFromRef, shownRef])
}
