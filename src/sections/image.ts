import type { FromSchema } from 'json-schema-to-ts'
import type { imageSchema } from '../../schema/parts.ts'

/** An image as the config names it. */
export type ImageProps = FromSchema<typeof imageSchema>
