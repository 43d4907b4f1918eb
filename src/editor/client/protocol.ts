import type { ClientPageConfig } from '../../../schema/page-config.ts'

// What the editor page and the editor server (src/editor/server.ts) say to each other (what it says to its preview
// frames is src/studio/client/editing/preview-messages.ts). Types only: nothing here runs.

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
