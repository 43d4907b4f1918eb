import type { ClientPageConfig } from '../../../../schema/page-config.ts'

// What an editing page (the studio's, or `npm run edit`'s) and its preview frames say to each other. Types only.

/** A part of the page: a section by its index in `sections`, or the header or footer. */
export type PagePart = { kind: 'section'; index: number } | { kind: 'header' } | { kind: 'footer' }

/** Editing page → preview frame. `validatorUrl`: where the draft form's compiled validator is (the studio's frames). */
export type ToPreview =
  | { type: 'config'; config: ClientPageConfig; validatorUrl?: string | undefined }
  | { type: 'show'; part: PagePart | null; scroll: boolean }
  | { type: 'scroll-to'; y: number }

/** Preview frame → editing page. */
export type FromPreview = { type: 'ready'; hasPage: boolean } | { type: 'select'; part: PagePart }
