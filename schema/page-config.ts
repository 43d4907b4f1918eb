import type { JSONSchema } from 'json-schema-to-ts'
import type { FromConfigSchema } from './parts.ts'
import { phasesSchema, type PhasesConfig } from './phases.ts'
import { privacySchema, type PrivacyConfig, type PrivacyPage } from './privacy.ts'
import { documentsSchema, type DocumentsConfig } from './documents.ts'
import { worksheetsSchema, type WorksheetsConfig } from './worksheets.ts'
import { footerSchema, headerSchema, sectionsSchema, type Section } from './sections.ts'
import { seoSchema, siteSchema, type Seo, type Site } from './site.ts'
import { formSchema, modalSchema, type ClientFormConfig, type FormConfig, type ModalProps } from './form-config.ts'
import { replySchema, type ReplyConfig } from './reply.ts'
import { launchSchema, type LaunchConfig } from './launch.ts'

/** The page shown for any address other than the home page. */
export const notFoundSchema = {
  type: 'object',
  title: 'Not-found page',
  description: 'Shown for any address other than "/".',
  properties: {
    title: { type: 'string', minLength: 1, title: 'Page title', description: 'The browser tab title.' },
    heading: { type: 'string', minLength: 1, title: 'Heading', description: 'The big heading.', examples: ['404'] },
    text: { type: 'string', minLength: 1, title: 'Text', description: 'The sentence under it.' },
    linkLabel: { type: 'string', minLength: 1, title: 'Link label', description: 'The link back to the home page.' },
  },
  required: ['title', 'heading', 'text', 'linkLabel'],
  additionalProperties: false,
} as const satisfies JSONSchema
export type NotFoundProps = FromConfigSchema<typeof notFoundSchema>

/**
 * The version of the page.config.json format this code reads. Raise it with every change that an existing config
 * would fail (a new required field, a rename), and teach src/config/config-migrations.ts to rewrite the older files.
 */
export const currentConfigVersion = 2

/** The whole page.config.json. */
export const pageConfigSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://example.com/schema/page-config.schema.json',
  type: 'object',
  title: 'Page configuration',
  description:
    'Everything that belongs to one development: texts, images, order of sections, search tags and the form.',
  properties: {
    $schema: { type: 'string', title: 'Schema', description: 'Lets the editor check this file. Keep it as it is.' },
    configVersion: {
      type: 'integer',
      const: currentConfigVersion,
      title: 'Config format version',
      description:
        'The version of the config format this file is written in. npm run migrate updates an older file; do not change it by hand.',
    },
    launch: launchSchema,
    site: siteSchema,
    seo: seoSchema,
    header: headerSchema,
    sections: sectionsSchema,
    footer: footerSchema,
    modal: modalSchema,
    form: formSchema,
    notFound: notFoundSchema,
    reply: replySchema,
    privacy: privacySchema,
    phases: phasesSchema,
    documents: documentsSchema,
    worksheets: worksheetsSchema,
  },
  required: ['configVersion', 'launch', 'site', 'seo', 'header', 'sections', 'footer', 'modal', 'form', 'notFound'],
  additionalProperties: false,
} as const

/** A validated page configuration. */
export type PageConfig = {
  configVersion: typeof currentConfigVersion
  launch: LaunchConfig
  site: Site
  seo: Seo
  header: FromConfigSchema<typeof headerSchema>
  sections: Section[]
  footer: FromConfigSchema<typeof footerSchema>
  modal: ModalProps
  form: FormConfig
  notFound: NotFoundProps
  reply?: ReplyConfig
  privacy?: PrivacyConfig
  phases?: PhasesConfig
  documents?: DocumentsConfig
  worksheets?: WorksheetsConfig
}

/** The config as the page's bundle gets it: no head tags (prerendered), and only the page's part of the form. */
export type ClientPageConfig = Omit<
  PageConfig,
  'seo' | 'form' | 'launch' | 'privacy' | 'phases' | 'documents' | 'worksheets'
> & {
  /** The current phase's banner, when it has one (the page is built once per phase: it never decides the phase). */
  banner?: string
  /** The privacy page, every text decided (schema/privacy.ts). */
  privacy: PrivacyPage
  /**
   * Only the slug (the page names its launch to the function) and whether its visits are counted (a page built for a
   * hosted function asks it for a visit image); the notification address stays on the server.
   */
  launch: Pick<PageConfig['launch'], 'slug' | 'countVisits'>
  form: ClientFormConfig
  /** The responsive variants the build made of raster images, by src (see src/build/image-variants.ts). */
  imageVariants?: ImageManifest
}

/** One modern-format alternative of an image, ready for <source type srcset>. */
export type ImageSource = { type: 'image/avif' | 'image/webp'; srcset: string }

/** An image's intrinsic size (after EXIF rotation) and its modern-format sources, best first. */
export type ImageVariants = { width: number; height: number; sources: ImageSource[] }

/** Variants by the image's "src" exactly as the config writes it ("/images/hero.jpg"). SVGs are absent. */
export type ImageManifest = Record<string, ImageVariants>
