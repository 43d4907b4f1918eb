import type { FromConfigSchema, imageSchema } from '../../schema/parts.ts'

/** An image as the config names it. */
export type ImageProps = FromConfigSchema<typeof imageSchema>

/**
 * The CSS `sizes` of an image shown at a fixed height per viewport width (a logo: `h-7 min-[400px]:h-8 sm:h-11` is
 * `[[640, 44], [400, 32], [0, 28]]`, widest first): the width each height gives at the image's proportions.
 */
export function sizesByHeight(
  image: { width: number; height: number },
  heights: Array<[minWidth: number, px: number]>,
): string {
  const at = (px: number) => `${Math.ceil((px * image.width) / image.height)}px`
  return heights.map(([minWidth, px]) => (minWidth ? `(min-width: ${minWidth}px) ${at(px)}` : at(px))).join(', ')
}
