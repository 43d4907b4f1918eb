import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, stat } from 'node:fs/promises'
import path from 'node:path'
import sharp from 'sharp'
import type { ImageManifest, ImageVariants, PageConfig } from '../../schema/page-config.ts'
import { isRasterImage, isSvgImage, listConfigImages, publicFileOf } from '../config/config-files.ts'
import { linkOrCopyFile } from './page-code.ts'

/**
 * The widths made for each image; never wider than the original, whose own width is added when smaller than the
 * largest.
 */
export const variantWidths = [480, 960, 1600] as const

const formats = [
  // Effort 2, not sharp's default 4: 4–7× faster to encode (the sample hero at 960 px: 6.9 s against 29.5 s on a
  // loaded 2-core machine) for files within a few per cent of the size (14.8 against 15.1 KB).
  { type: 'image/avif', extension: 'avif', encode: (image: sharp.Sharp) => image.avif({ quality: 50, effort: 2 }) },
  { type: 'image/webp', extension: 'webp', encode: (image: sharp.Sharp) => image.webp({ quality: 75 }) },
] as const

/**
 * Writes AVIF and WebP variants of every raster image the config names (png, jpg, webp, avif), and of every
 * SVG (drawn at each width, `svgWidthsFor`), into `outDir`/images/_v/. SVGs too, however small: each `<img>` of an
 * SVG is a document of its own that the browser parses, styles, lays out and paints on the main thread; a raster
 * image is decoded off it (the sample's 7 KB logo cost 57–80 ms of main thread on Lighthouse's phone, for a 2 KB
 * AVIF). The files are named by content hash so they can be cached forever; it returns the manifest
 * <picture> is rendered from. Files already written for the same content are reused: in `outDir`, and in `cacheDir`
 * when given (shared by every launch and build: encoding is most of an image's cost), linked from there; `counts` says
 * how
 * many variants were found made and how many were encoded. Throws an Error in plain words when an image is missing or
 * unreadable (a checked config never has either).
 */
export async function buildImageVariants(
  config: PageConfig,
  publicDir: string,
  outDir: string,
  cacheDir?: string,
  counts: VariantCounts = { reused: 0, made: 0 },
): Promise<ImageManifest> {
  const manifest: ImageManifest = {}
  const sources = [...new Set(listConfigImages(config).map((image) => image.src))].filter(
    (src) => isRasterImage(src) || isSvgImage(src),
  )
  for (const src of sources) manifest[src] = await buildOne(src, publicDir, outDir, cacheDir, counts)
  return manifest
}

/** How many picture variants a build found already made (by content, in the cache) and how many it encoded. */
export type VariantCounts = { reused: number; made: number }

/** The widths to make for an image `width` pixels wide. */
export function widthsFor(width: number): number[] {
  const smaller = variantWidths.filter((w) => w < width)
  const largest = variantWidths[variantWidths.length - 1]!
  return width <= largest ? [...smaller, width] : [...smaller]
}

/**
 * The widths to draw an SVG `width` pixels wide at: as a picture that wide (`widthsFor`), and for a small one (a
 * logo) also twice and three times its width, as a sharp phone screen shows it: an SVG has no pixels of its own to
 * run out of.
 */
export function svgWidthsFor(width: number): number[] {
  const largest = variantWidths[variantWidths.length - 1]!
  const dense = [width, 2 * width, 3 * width].filter((w) => w <= largest)
  return [...new Set([...widthsFor(width), ...dense])].sort((a, b) => a - b)
}

async function buildOne(
  src: string,
  publicDir: string,
  outDir: string,
  cacheDir: string | undefined,
  counts: VariantCounts,
): Promise<ImageVariants> {
  // Checked again here, for a config the checker never saw: a picture is read from, and written under, its launch only.
  const file = publicFileOf(publicDir, src)
  if (file === undefined)
    throw new Error(
      `The image ${JSON.stringify(src)} named in the config climbs out of ${publicDir}: the build stops here.`,
    )
  let input: Buffer
  try {
    input = await readFile(file)
  } catch {
    throw new Error(`The image ${src} named in the config is not in ${publicDir}.`)
  }
  const svg = isSvgImage(src)
  const hash = createHash('sha256').update(input).digest('hex').slice(0, 10)
  let size = sizes.get(hash)
  if (!size) {
    try {
      size = (await sharp(input).metadata()).autoOrient
    } catch (error) {
      throw new Error(`The image ${src} cannot be read as an image (${(error as Error).message}).`)
    }
    sizes.set(hash, size)
  }
  const { width, height } = size
  // "/images/homes/semi.jpg" → "homes/semi": keeps names readable and apart from other folders' files.
  const stem = src.replace(/^\/(images\/)?/, '').replace(/\.[^./]+$/, '')
  const widths = svg ? svgWidthsFor(width) : widthsFor(width)
  const sources = await Promise.all(
    formats.map(async (format) => {
      const entries = await Promise.all(
        widths.map(async (w) => {
          const name = `${stem}.${hash}-${w}.${format.extension}`
          const target = path.join(outDir, 'images', '_v', ...name.split('/'))
          const encoded = cacheDir ? path.join(cacheDir, ...name.split('/')) : target
          if (await exists(encoded)) counts.reused++
          else {
            counts.made++
            await mkdir(path.dirname(encoded), { recursive: true })
            // Write aside, then rename: an interrupted build never leaves a half-written file under the final name.
            // Named for this write alone: two launches built side by side may encode the same picture at once.
            const partial = `${encoded}.${process.pid}.${++partialCount}.part`
            // An SVG is drawn straight at this width (the density that gives it), not drawn whole and then scaled.
            const source = svg ? sharp(input, { density: (72 * w) / width }) : sharp(input).autoOrient()
            await format.encode(source.resize({ width: w, withoutEnlargement: !svg })).toFile(partial)
            await rename(partial, encoded)
          }
          if (encoded !== target && !(await exists(target))) {
            await mkdir(path.dirname(target), { recursive: true })
            linkOrCopyFile(encoded, target)
          }
          return `/images/_v/${encodeURI(name)} ${w}w`
        }),
      )
      return { type: format.type, srcset: entries.join(', ') }
    }),
  )
  return { width, height, sources }
}

let partialCount = 0
// Each picture's size by its content's hash: the same picture in twenty launches is read by sharp once a process.
const sizes = new Map<string, { width: number; height: number }>()

async function exists(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile()
  } catch {
    return false
  }
}
