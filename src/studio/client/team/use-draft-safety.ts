import { useCallback, useEffect, useMemo, useRef, useState, type RefObject } from 'react'
import type { DraftConflict, SaveDraftResponse } from '../../protocol.ts'
import { StudioRequestError, studioApi } from '../api.ts'
import { clearUnsaved, keepUnsaved, readUnsaved, unsavedKey, type UnsavedWork } from './unsaved-work.ts'
import { usePresence } from './use-presence.ts'

/** What the editor page gives: the launch as opened, and how to read and set the text in its code editor. */
export type DraftSafetyOptions = {
  slug: string
  canEdit: boolean
  /** `npm run edit`: one person, so no one else's presence to show. */
  local: boolean
  /** The draft version the editor opened with (0: no draft was ever saved). */
  openedVersion: number
  /** The text in the code editor now (undefined before it is made). */
  currentText: () => string | undefined
  /** Puts a text into the editor as the saved one (their draft, taken). */
  takeText: (text: string) => void
  /** Puts a text into the editor as typed, not yet saved (unsaved work taken back): the draft saves it as usual. */
  typeText: (text: string) => void
  /** Saves the text in the editor now (after "Keep mine"). */
  saveNow: () => void
}

/** The state the team's banners show (team/TeamBanners.tsx). */
export type DraftSafetyView = {
  conflict?: { draft: DraftConflict; refused: boolean } | undefined
  unsaved?: UnsavedWork | undefined
  others: Array<{ who: string; since: string }>
}

type TeamState = Omit<DraftSafetyView, 'others'>

/**
 * A draft that is safe for a team: every save carries the draft version it was made from, and a refused save (409)
 * keeps the person's text and shows who saved what and when; a newer draft saved meanwhile is announced, never loaded
 * into the text; unsaved text is kept in this browser (per launch and person) and offered back on the next open.
 */
export function useDraftSafety(options: DraftSafetyOptions) {
  const { slug } = options
  const latest = useRef(options)
  useEffect(() => {
    latest.current = options
  })
  const base = useRef(options.openedVersion)
  // Read by callbacks made once (the code editor's), so a ref: set at a refusal, cleared by the person's choice.
  const refused = useRef(false)
  const key = useRef<string>(undefined)
  const [view, setView] = useState<TeamState>({})
  const presence = usePresence(slug, options.canEdit && !options.local)

  useEffect(() => {
    void studioApi.me().then(({ email }) => {
      key.current = unsavedKey(slug, email)
      const kept = readUnsaved(localStorage, key.current)
      if (kept && kept.text !== latest.current.currentText()) setView((v) => ({ ...v, unsaved: kept }))
    })
  }, [slug])

  useAnnouncement(slug, presence?.draft?.version, base, setView)

  /**
   * Saves `text` as the draft made from the version this editor holds; a refusal (409) shows the conflict and throws.
   */
  const save = useCallback(
    async (text: string): Promise<SaveDraftResponse> => {
      try {
        const result = await studioApi.saveDraft(slug, text, base.current)
        if (result.version !== undefined) base.current = result.version
        if (key.current && latest.current.currentText() === text) clearUnsaved(localStorage, key.current)
        setView((v) => (v.conflict?.draft.version === base.current ? { ...v, conflict: undefined } : v))
        return result
      } catch (error) {
        if (error instanceof StudioRequestError && error.conflict) {
          refused.current = true
          const draft = error.conflict
          setView((v) => ({ ...v, conflict: { draft, refused: true } }))
        }
        throw error
      }
    },
    [slug],
  )

  /** The text changed: kept in this browser until saved (nothing kept when it is the saved text again). */
  const typed = useCallback((text: string, savedText: string) => {
    if (!key.current) return
    if (text === savedText) clearUnsaved(localStorage, key.current)
    else keepUnsaved(localStorage, key.current, { text, baseVersion: base.current, at: new Date().toISOString() })
  }, [])

  const actions = useChoices({ baseRef: base, refusedRef: refused, keyRef: key, latestRef: latest, setView })
  /** A refused save waits for the person's choice: typing does not save meanwhile. */
  const waiting = () => refused.current
  return {
    view: { ...view, others: presence?.others ?? [] } satisfies DraftSafetyView,
    save,
    typed,
    waiting,
    actions,
    setBase: (version: number) => (base.current = version),
  }
}

/** The choices offered: take their draft, keep mine, restore or discard unsaved work. */
function useChoices({
  baseRef,
  refusedRef,
  keyRef,
  latestRef,
  setView,
}: {
  baseRef: RefObject<number>
  refusedRef: RefObject<boolean>
  keyRef: RefObject<string | undefined>
  latestRef: RefObject<DraftSafetyOptions>
  setView: (update: (view: TeamState) => TeamState) => void
}) {
  return useMemo(
    () => ({
      takeTheirs: (draft: DraftConflict) => {
        baseRef.current = draft.version
        refusedRef.current = false
        setView((v) => ({ ...v, conflict: undefined }))
        latestRef.current.takeText(draft.text)
      },
      keepMine: (draft: DraftConflict) => {
        baseRef.current = draft.version
        refusedRef.current = false
        setView((v) => ({ ...v, conflict: undefined }))
        latestRef.current.saveNow()
      },
      restoreUnsaved: (work: UnsavedWork) => {
        // Made from the version it was typed on: if someone saved since, its save is refused and they choose.
        baseRef.current = work.baseVersion
        setView((v) => ({ ...v, unsaved: undefined }))
        latestRef.current.typeText(work.text)
      },
      discardUnsaved: () => {
        if (keyRef.current) clearUnsaved(localStorage, keyRef.current)
        setView((v) => ({ ...v, unsaved: undefined }))
      },
    }),
    [baseRef, refusedRef, keyRef, latestRef, setView],
  )
}

/** A draft version newer than this editor's, seen by the heartbeat: announced with who and when, their text fetched. */
function useAnnouncement(
  slug: string,
  newest: number | undefined,
  base: { current: number },
  setView: (update: (view: TeamState) => TeamState) => void,
) {
  useEffect(() => {
    if (newest === undefined || newest <= base.current) return
    let live = true
    void studioApi.launch(slug).then((detail) => {
      const version = detail.draftVersion ?? 0
      // Saved by this editor meanwhile (its answer came after the heartbeat's), or already shown: nothing to say.
      if (!live || version <= base.current || !detail.draft) return
      const draft = { version, by: detail.draft.by, savedAt: detail.draft.updatedAt, text: detail.draftText ?? '' }
      setView((v) => (v.conflict ? v : { ...v, conflict: { draft, refused: false } }))
    })
    return () => {
      live = false
    }
  }, [slug, newest, base, setView])
}
