import type { FromSchema, JSONSchema } from 'json-schema-to-ts'

/**
 * The type of what a config author writes for schema S: fields with a default may be left out (the components
 * apply the default), so they stay optional.
 */
export type FromConfigSchema<S extends JSONSchema> = FromSchema<S, { keepDefaultedPropertiesOptional: true }>

/** Reusable schema pieces shared by the page and its sections. */

export const anchorSchema = {
  type: 'string',
  title: 'Anchor',
  description:
    'The id of this section, used in links such as "#register". Lower-case letters, digits and dashes; unique on the page.',
  pattern: '^[a-z][a-z0-9-]*$',
  examples: ['overview', 'register', 'contact'],
} as const satisfies JSONSchema

export const headingSchema = {
  type: 'string',
  title: 'Heading',
  description: 'The section heading, as visitors read it.',
  minLength: 1,
} as const satisfies JSONSchema

export const eyebrowSchema = {
  type: 'string',
  title: 'Eyebrow',
  description: 'A short label shown above the heading, e.g. "Now Selling".',
  minLength: 1,
} as const satisfies JSONSchema

export const paragraphsSchema = {
  type: 'array',
  title: 'Paragraphs',
  description: 'Body text, one string per paragraph.',
  items: { type: 'string', minLength: 1, description: 'One paragraph of body text.' },
  minItems: 1,
} as const satisfies JSONSchema

/**
 * An image's path inside the launch's public/ folder: "/" and then parts, none of them "." or ".." or empty, and no
 * backslash, so that it never names a file outside the launch (the checker and the build hold the same rule again).
 */
export const imageSrcPattern = '^(?!.*/\\.{1,2}(/|$))(?!.*//)/[^\\s\\\\]+\\.(svg|png|jpe?g|webp|avif)$'

export const imageSchema = {
  type: 'object',
  title: 'Image',
  description: 'An image from the public/ folder. Give its real pixel size so the page does not jump while it loads.',
  properties: {
    src: {
      type: 'string',
      title: 'File',
      description:
        'Path of the image inside public/, starting with "/" (no "." or ".." parts: it stays inside public/).',
      pattern: imageSrcPattern,
      examples: ['/images/hero.svg'],
    },
    alt: {
      type: 'string',
      title: 'Alternative text',
      description: 'What the image shows, for people who cannot see it. Use "" only for purely decorative images.',
    },
    width: { type: 'integer', minimum: 1, title: 'Width', description: 'Intrinsic width in pixels.' },
    height: { type: 'integer', minimum: 1, title: 'Height', description: 'Intrinsic height in pixels.' },
  },
  required: ['src', 'alt', 'width', 'height'],
  additionalProperties: false,
} as const satisfies JSONSchema

export const hrefSchema = {
  type: 'string',
  title: 'Link',
  description: 'Where the link goes: "#anchor" for a section of this page, or a full https:// address.',
  pattern: '^(#[a-z][a-z0-9-]*|/[^\\s]*|https?://[^\\s]+|tel:\\+?[0-9]+|mailto:[^\\s]+)$',
  examples: ['#register', 'https://example.com/'],
} as const satisfies JSONSchema

export const linkSchema = {
  type: 'object',
  title: 'Link',
  description: 'A text link.',
  properties: {
    label: { type: 'string', minLength: 1, title: 'Label', description: 'The link text.' },
    href: hrefSchema,
  },
  required: ['label', 'href'],
  additionalProperties: false,
} as const satisfies JSONSchema

export const ctaSchema = {
  type: 'object',
  title: 'Button',
  description:
    'A call-to-action button. It links to "href"; with "opensModal" it opens the registration dialog instead when scripts run.',
  properties: {
    label: {
      type: 'string',
      minLength: 1,
      title: 'Label',
      description: 'The button text.',
      examples: ['Register Now'],
    },
    href: hrefSchema,
    opensModal: {
      type: 'boolean',
      title: 'Opens the registration dialog',
      description: 'true: the button opens the registration dialog; false or absent: it follows the link.',
      default: false,
    },
  },
  required: ['label', 'href'],
  additionalProperties: false,
} as const satisfies JSONSchema

export const titledItemSchema = {
  type: 'object',
  title: 'Item',
  description: 'A short title with a sentence or two of text.',
  properties: {
    title: { type: 'string', minLength: 1, title: 'Title', description: 'The item title.' },
    text: { type: 'string', minLength: 1, title: 'Text', description: 'One or two sentences.' },
  },
  required: ['title', 'text'],
  additionalProperties: false,
} as const satisfies JSONSchema

export const toneSchema = {
  type: 'string',
  title: 'Background',
  description: 'The background of the section: "light" (white), "muted" (soft tint) or "dark" (deep green).',
  enum: ['light', 'muted', 'dark'],
  default: 'light',
} as const satisfies JSONSchema

/** A section's "type" field: always the one word that picks the section's component. */
export function sectionTypeSchema<T extends string>(type: T) {
  return { const: type, title: 'Section type', description: `Always "${type}".` } as const satisfies JSONSchema
}

/** A short paragraph under a section's heading. */
export function introSchema(description = 'A sentence under the heading.') {
  return { type: 'string', minLength: 1, title: 'Intro', description } as const satisfies JSONSchema
}

/** A list of short lines (points, facts, disclaimers), one string each. */
export function stringListSchema(title: string, description: string, itemDescription: string) {
  return {
    type: 'array',
    title,
    description,
    items: { type: 'string', minLength: 1, description: itemDescription },
  } as const satisfies JSONSchema
}

/** A list of titled items (reasons, highlights), at least one. */
export function titledItemsSchema(title: string, description: string) {
  return { type: 'array', title, description, minItems: 1, items: titledItemSchema } as const satisfies JSONSchema
}

/** The fields every section starts with: its type, its anchor, an eyebrow and its heading. */
export function sectionBaseProperties<T extends string>(type: T) {
  return {
    type: sectionTypeSchema(type),
    anchor: anchorSchema,
    eyebrow: eyebrowSchema,
    heading: headingSchema,
  } as const
}
