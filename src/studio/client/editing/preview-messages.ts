import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import type { Segment } from '../../../config/json-source.ts'

// What an editing page (the studio's, or `npm run edit`'s) and its preview frames say to each other. Types only.

/** A part of the page: a section by its index in `sections`, or the header or footer. */
export type PagePart = { kind: 'section'; index: number } | { kind: 'header' } | { kind: 'footer' }

/**
 * The phase the previews show, for the canvas: its name, its name in the team's words, and the anchors of the sections
 * it hides (shown dimmed, with Show in this phase).
 */
export type FramePhase = { name: string; words: string; hidden: string[] }

/** Editing page → preview frame. `validatorUrl`: where the draft form's compiled validator is (the studio's frames). */
export type ToPreview =
  | { type: 'config'; config: ClientPageConfig; validatorUrl?: string | undefined; phase?: FramePhase | undefined }
  | { type: 'show'; part: PagePart | null; scroll: boolean }
  | { type: 'scroll-to'; y: number }

/** What a section's toolbar on the canvas (or a drag) asks of the page's sections. */
export type SectionAction =
  { action: 'up' | 'down' | 'duplicate' | 'delete'; index: number } | { action: 'move'; index: number; to: number }

/** Preview frame → editing page. Paths are those of the config the frame shows (a phase laid over the page). */
export type FromPreview =
  | { type: 'ready'; hasPage: boolean }
  | { type: 'select'; part: PagePart; keepFocus?: boolean }
  /** A text being edited on the canvas, at each keystroke (the other frame follows). */
  | { type: 'typing'; path: Segment[]; value: string }
  /** A text edited on the canvas, committed (Enter, or the field left). */
  | { type: 'edit'; path: Segment[]; value: string }
  | ({ type: 'section' } & SectionAction)
  /** Hide in this phase (`hide`), or Show in this phase, on section `index`'s toolbar. */
  | { type: 'phase-hide'; index: number; hide: boolean }
  /** Ctrl+Z / Ctrl+Shift+Z on the canvas. */
  | { type: 'history'; action: 'undo' | 'redo' }
  /** A picture file dropped on the picture at `path` (the object with its "src"). */
  | { type: 'picture'; path: Segment[]; file: File }
