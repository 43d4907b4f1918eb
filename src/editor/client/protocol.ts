import type { ClientPageConfig } from '../../../schema/page-config.ts'

// What the editor page and the editor server (src/editor/server.ts) say to each other, and what the editor page
// and its preview frames say to each other. Types only: nothing here runs.

/** The header every /api/ request carries: the session's token, written into the editor page by the server. */
export const tokenHeader = 'x-editor-token'

/** One problem, as `npm run validate` words it (src/config/check-page-config.ts). */
export type ProblemView = { line: number; column: number; where: string; message: string; fix: string }

/** GET /api/state: the file as it is on disk now. */
export type StateResponse = { file: string; launch: string; path: string; text: string; version: string; lineSeparator: '\n' | '\r\n'; problems: ProblemView[] }

/** POST /api/check: the problems of a text; when it has none, the page to preview and whether frames must reload. */
export type CheckResponse = { problems: ProblemView[]; preview?: { config: ClientPageConfig; reload: boolean } }

/** POST /api/save body: the text and the version of the file it was based on. */
export type SaveRequest = { text: string; baseVersion: string }

/** POST /api/save: saved (200), with the problems the saved text still has; or refused (409) with the file's text. */
export type SaveResponse = { version: string; problems: ProblemView[] }
export type ConflictResponse = { conflict: true; version: string; text: string }

/** POST /api/images: where the picture was stored and its size in pixels. */
export type ImageResponse = { src: string; width: number; height: number }

/** An error from the server, in plain words. */
export type ErrorResponse = { error: string }

/** A part of the page: a section by its index in `sections`, or the header or footer. */
export type PagePart = { kind: 'section'; index: number } | { kind: 'header' } | { kind: 'footer' }

/** Editor → preview frame. */
export type ToPreview =
  | { type: 'config'; config: ClientPageConfig }
  | { type: 'show'; part: PagePart | null; scroll: boolean }
  | { type: 'scroll-to'; y: number }

/** Preview frame → editor. */
export type FromPreview = { type: 'ready'; hasPage: boolean } | { type: 'select'; part: PagePart }
