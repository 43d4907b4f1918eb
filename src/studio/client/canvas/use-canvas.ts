import { useCallback, useEffect, useState, type RefObject } from 'react'
import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import type { Segment } from '../../../config/json-source.ts'
import type { CodeEditor } from '../editing/code-editor.ts'
import type { FromPreview, SectionAction } from '../editing/preview-messages.ts'
import type { FrameListener, PreviewBridge } from '../workspace/use-preview-bridge.ts'
import type { SectionType } from '../../../../schema/sections.ts'
import { studioApi } from '../api.ts'
import { insertSection, setValueAt } from './canvas-edits.ts'
import type { PendingPicture } from './PictureDialog.tsx'
import { sectionDefaults } from './section-defaults.ts'
import { hideInPhase } from './phase-hide.ts'
import { targetOfEdit } from './phase-target.ts'
import { applySectionAction, applyToList, indexAfter, sayAction } from './section-ops.ts'

/** What the canvas needs: the code editor (whose history is the one history), the previews, the status line. */
export type CanvasDeps = {
  editorRef: RefObject<CodeEditor | null>
  bridge: PreviewBridge
  listenerRef: RefObject<FrameListener | undefined>
  setStatus: (status: string) => void
  /** Saves the draft now (the previews then show the server's page). */
  saveNow: () => void
  /** A picture dropped on the canvas: asks its alternative text (PictureDialog), then replaces the picture. */
  askPicture: (pending: PendingPicture) => void
}

/** The canvas as the side panel gets it: its deps, and the picture waiting for its alternative text. */
export type CanvasState = CanvasDeps & {
  pendingPicture: PendingPicture | undefined
  replacePicture: (pending: PendingPicture, alt: string) => void
  cancelPicture: () => void
}

function withValue(config: ClientPageConfig, path: Segment[], value: unknown): ClientPageConfig {
  const copy = structuredClone(config)
  let node = copy as unknown as Record<string, unknown>
  for (const step of path.slice(0, -1)) node = node[String(step)] as Record<string, unknown>
  node[String(path.at(-1))] = value
  return copy
}

function valueAt(config: unknown, path: Segment[]): unknown {
  return path.reduce<unknown>((node, step) => (node as Record<string, unknown> | undefined)?.[String(step)], config)
}

/** Shows `config` in the frames at once (all, or all but `except`), before the server's page arrives. */
function showLocally(bridge: PreviewBridge, config: ClientPageConfig, except?: Window): void {
  const shown = bridge.shownRef.current
  if (!shown) return
  const message = { ...shown, config }
  if (!except) bridge.shownRef.current = message
  for (const frame of bridge.framesRef.current) {
    const win = frame?.contentWindow
    if (win && win !== except) bridge.post(message, win)
  }
}

/** A text edited in place: written where it belongs (the page, or the shown phase's own texts). */
function commitText(deps: CanvasDeps, path: Segment[], value: string): void {
  const code = deps.editorRef.current
  const shown = deps.bridge.shownRef.current
  if (!code || !shown) return
  try {
    const text = code.text()
    const phases = deps.bridge.phases
    const target = targetOfEdit(JSON.parse(text), path, {
      shown: phases?.shown,
      chosen: deps.bridge.askedPhaseRef.current !== undefined,
    })
    const patched = withValue(shown.config, path, value)
    const written = valueAt(patched, path.slice(0, path.length - target.cut))
    code.updateText(setValueAt(text, target.path, JSON.stringify(written)))
    showLocally(deps.bridge, patched)
    deps.setStatus(target.note)
  } catch (e) {
    deps.setStatus(`The text could not be changed: ${(e as Error).message}`)
  }
}

/** A section moved, copied or removed from the canvas or the section list. */
export function actOnSection(deps: CanvasDeps, action: SectionAction): void {
  const code = deps.editorRef.current
  if (!code) return
  try {
    const before = code.text()
    const after = applySectionAction(before, action)
    if (after === before) return
    code.updateText(after)
    const shown = deps.bridge.shownRef.current
    if (shown) showLocally(deps.bridge, { ...shown.config, sections: applyToList(shown.config.sections, action) })
    const to = indexAfter(action, shown?.config.sections.length ?? Number.MAX_SAFE_INTEGER)
    if (to !== undefined) code.goToPart({ kind: 'section', index: to }, false)
    deps.setStatus(sayAction(action))
    deps.saveNow()
  } catch (e) {
    deps.setStatus(`The sections could not be changed: ${(e as Error).message}`)
  }
}

/** Undo or Redo in the one history (the code editor's): canvas, form and code edits alike. */
export function stepHistory(deps: Pick<CanvasDeps, 'editorRef' | 'setStatus'>, action: 'undo' | 'redo'): void {
  const code = deps.editorRef.current
  if (!code) return
  const done = action === 'undo' ? code.undo() : code.redo()
  deps.setStatus(done ? (action === 'undo' ? 'Undone.' : 'Done again.') : `Nothing to ${action}.`)
}

function onMessage(deps: CanvasDeps, message: FromPreview, source: Window): void {
  const shown = deps.bridge.shownRef.current
  if (message.type === 'typing' && shown)
    showLocally(deps.bridge, withValue(shown.config, message.path, message.value), source)
  else if (message.type === 'edit') commitText(deps, message.path, message.value)
  else if (message.type === 'section') actOnSection(deps, message)
  else if (message.type === 'phase-hide') hideInPhase(deps, message.index, message.hide)
  else if (message.type === 'history') stepHistory(deps, message.action)
  else if (message.type === 'picture') deps.askPicture({ path: message.path, file: message.file })
}

/** What the workspace gives the canvas: `saveDraft` as the draft hook has it. */
export type CanvasWiring = Omit<CanvasDeps, 'saveNow' | 'setStatus' | 'askPicture'> & {
  slug: string
  saveDraft: (reason: 'typing' | 'button') => Promise<boolean>
}

/**
 * The canvas's half on the editing page: what the frames' edits, section actions and history keys do to the text.
 * Returns the deps the side panel acts with, the step of the one history (Undo, Redo) and the canvas's note.
 */
export function useCanvas({ saveDraft, slug, ...wiring }: CanvasWiring) {
  // The canvas's own line (where an edit went, what a section action did): the draft's status line is rewritten
  // by each save, a moment after the edit it would have to explain.
  const [note, setStatus] = useState('')
  const [pendingPicture, askPicture] = useState<PendingPicture>()
  const deps: CanvasDeps = { ...wiring, setStatus, askPicture, saveNow: () => void saveDraft('button') }
  const canvas: CanvasState = {
    ...deps,
    pendingPicture,
    replacePicture: (pending, alt) => {
      askPicture(undefined)
      void replacePicture(deps, slug, pending, alt)
    },
    cancelPicture: () => askPicture(undefined),
  }
  const { listenerRef, editorRef } = wiring
  useEffect(() => {
    listenerRef.current = (message, source) => onMessage(deps, message, source)
  })
  const stepTo = useCallback(
    (action: 'undo' | 'redo') => stepHistory({ editorRef, setStatus }, action),
    [editorRef, setStatus],
  )
  return { canvas, stepTo, note }
}

/** A new section of `type` at `index`, with its first content from its schema. */
export function addSection(deps: CanvasDeps, type: SectionType, index: number): void {
  const code = deps.editorRef.current
  if (!code) return
  try {
    const text = code.text()
    code.updateText(insertSection(text, index, sectionDefaults(type, JSON.parse(text))))
    code.goToPart({ kind: 'section', index }, false)
    deps.setStatus(`A new section is at place ${index + 1}: click its texts in the previews to write them.`)
    deps.saveNow()
  } catch (e) {
    deps.setStatus(`The section could not be added: ${(e as Error).message}`)
  }
}

/** Uploads a dropped picture (the studio's own upload: its checks and names) and puts it, with its alt, at `path`. */
async function replacePicture(deps: CanvasDeps, slug: string, { path, file }: PendingPicture, alt: string) {
  deps.setStatus(`Adding ${file.name}…`)
  try {
    const image = await studioApi.uploadImage(slug, file)
    const code = deps.editorRef.current
    if (!code) return
    let text = code.text()
    const fields: [string, string][] = [
      ['src', JSON.stringify(image.src)],
      ['alt', JSON.stringify(alt)],
      ['width', String(image.width)],
      ['height', String(image.height)],
    ]
    for (const [key, value] of fields) text = setValueAt(text, [...path, key], value)
    code.updateText(text)
    deps.setStatus(`The picture is now ${image.src} (${image.width} × ${image.height} pixels), described as “${alt}”.`)
    deps.saveNow()
  } catch (e) {
    deps.setStatus(`The picture was not replaced: ${(e as Error).message}`)
  }
}
