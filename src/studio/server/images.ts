import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'

/** The picture formats a page can show, by file extension (lower case, without the dot). */
const pictureFormats: Record<string, string[]> = {
  jpg: ['jpeg'],
  jpeg: ['jpeg'],
  png: ['png'],
  webp: ['webp'],
  avif: ['heif'],
  gif: ['gif'],
}

/** A picture that cannot be stored, with the reason in plain words. */
export class ImageUploadError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'ImageUploadError'
  }
}

/**
 * A file name the site can serve and every system can keep: lower case, a-z, 0-9 and dashes, accents folded
 * ("Façade Été.JPG" → "facade-ete.jpg"). Throws ImageUploadError for a type that is not a picture.
 */
export function safeImageName(original: string): { stem: string; extension: string } {
  const base = path.basename(original.replace(/\\/g, '/'))
  const dot = base.lastIndexOf('.')
  const extension = dot > 0 ? base.slice(dot + 1).toLowerCase() : ''
  // An SVG is a document that can carry script and links: a dropped one is never stored. A drawing the team trusts
  // can still be copied into public/images by hand.
  if (extension === 'svg' || extension === 'svgz') {
    throw new ImageUploadError(
      `${base} is an SVG drawing, which the editor does not take in (an SVG can carry script). Export it as a PNG or WebP and drop that, or copy the SVG into public/images yourself if it comes from someone you trust.`,
    )
  }
  if (!(extension in pictureFormats)) {
    throw new ImageUploadError(
      `${base || 'This file'} is not a picture the page can show. Use a JPEG, PNG, WebP, AVIF or GIF file.`,
    )
  }
  const stem = base
    .slice(0, dot)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '')
  return { stem: stem || 'image', extension }
}

/** Where a stored picture is and how the config names it. */
export type StoredImage = { file: string; src: string; width: number; height: number }

/**
 * Stores a dropped picture in `imagesDir` under a safe name, never over an existing file (photo.jpg, then
 * photo-2.jpg, photo-3.jpg …), and reads its size in pixels. Throws ImageUploadError when the bytes are not a
 * picture of the type its name says.
 */
export async function storeImage(imagesDir: string, originalName: string, bytes: Uint8Array): Promise<StoredImage> {
  const { stem, extension } = safeImageName(originalName)
  let metadata: sharp.Metadata
  try {
    metadata = await sharp(bytes).metadata()
  } catch {
    throw new ImageUploadError(
      `${path.basename(originalName)} could not be read as a picture: the file may be damaged.`,
    )
  }
  if (!metadata.width || !metadata.height || !pictureFormats[extension]?.includes(metadata.format ?? '')) {
    throw new ImageUploadError(
      `${path.basename(originalName)} is named .${extension} but holds ${metadata.format ? `a ${metadata.format.toUpperCase()} picture` : 'something else'}. Save it with the right ending and drop it again.`,
    )
  }
  mkdirSync(imagesDir, { recursive: true })
  for (let n = 1; ; n++) {
    const name = `${stem}${n === 1 ? '' : `-${n}`}.${extension}`
    const file = path.join(imagesDir, name)
    let fd: number
    try {
      // 'wx' fails when the name is taken, so two drops at once can never share a name.
      fd = openSync(file, 'wx')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue
      throw error
    }
    try {
      writeSync(fd, bytes)
    } catch (error) {
      closeSync(fd)
      rmSync(file, { force: true })
      throw error
    }
    closeSync(fd)
    return { file, src: `/images/${name}`, width: metadata.width, height: metadata.height }
  }
}
