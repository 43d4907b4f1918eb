/** An image the config names, and where: the JSON path of its object (e.g. ['sections', 0, 'image']). */
export type ConfigImage = { src: string; path: (string | number)[] }

/**
 * Every image object in a page config (any object with a string "src" and an "alt", as imageSchema has),
 * in document order. Works on unvalidated data: anything else is skipped.
 */
export function listConfigImages(config: unknown): ConfigImage[] {
  const found: ConfigImage[] = []
  const visit = (value: unknown, at: (string | number)[]): void => {
    if (Array.isArray(value)) {
      value.forEach((item, i) => visit(item, [...at, i]))
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>
      if (typeof record.src === 'string' && 'alt' in record) found.push({ src: record.src, path: at })
      for (const [key, child] of Object.entries(record)) visit(child, [...at, key])
    }
  }
  visit(config, [])
  return found
}

/** True for the raster formats the build turns into AVIF/WebP variants (png, jpg, webp, avif). */
export function isRasterImage(src: string): boolean {
  return /\.(png|jpe?g|webp|avif)$/i.test(src)
}

/** True for an SVG file. */
export function isSvgImage(src: string): boolean {
  return /\.svg$/i.test(src)
}
