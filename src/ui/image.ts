import type { FromConfigSchema, imageSchema } from '../../schema/parts.ts'

/** An image as the config names it. */
export type ImageProps = FromConfigSchema<typeof imageSchema>
