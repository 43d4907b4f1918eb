import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import path from 'node:path'
import { documentIdOf } from '../../schema/documents.ts'
import { closest, describePath, describeValue, listWords, type Finding } from './describe.ts'

// The files a config names: its images (in public/, copied to the site) and its documents (in the launch's folder,
// never copied anywhere: they are served only through a signed link).

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

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The first bytes of `file` ('' when it cannot be read). */
function headOf(file: string, length: number): string {
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const buffer = Buffer.alloc(length)
    return buffer.subarray(0, readSync(fd, buffer, 0, length, 0)).toString('latin1')
  } catch {
    return ''
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * The checks of `documents` JSON Schema cannot make: each file is a PDF in the launch's folder (`launchDir`, where
 * page.config.json is) and not under its public/ folder (whose files the build copies to the site, where anyone can
 * download them); no two share a name (it names the document in links and logs); the phases named exist; and a
 * launch with documents has a reply to carry their links. Works on unvalidated data.
 */
export function checkDocuments(data: Json, launchDir: string): Finding[] {
  const documents = data.documents
  if (!isObject(documents) || !Array.isArray(documents.list)) return []
  const findings: Finding[] = []
  if (!isObject(data.reply)) {
    findings.push({
      at: ['documents'],
      onKey: true,
      message:
        'This launch lists documents but has no "reply": their links travel in the reply e-mail, so no registrant would receive them.',
      fix: 'Add a "reply" (the e-mail registrants receive), or delete "documents".',
    })
  }
  const phases =
    isObject(data.phases) && Array.isArray(data.phases.list)
      ? data.phases.list.flatMap((p) => (isObject(p) && typeof p.name === 'string' ? [p.name] : []))
      : undefined
  const seen = new Map<string, number>()
  const root = path.resolve(launchDir)
  documents.list.forEach((entry, i) => {
    if (!isObject(entry) || typeof entry.file !== 'string') return
    const at = ['documents', 'list', i, 'file']
    const file = entry.file
    const id = documentIdOf(file)
    const first = seen.get(id)
    if (first !== undefined) {
      findings.push({
        at,
        message: `${describePath(at)} is named "${id}", like documents.list[${first}].file: the name tells the documents apart in links and on the leads page.`,
        fix: 'Rename one of the two files (e.g. documents/floor-plans-phase-2.pdf) and write its new path here.',
      })
    } else seen.set(id, i)
    const full = path.resolve(root, file)
    if (file.split('/')[0] === 'public') {
      findings.push({
        at,
        message: `${describePath(at)} is ${describeValue(file)}, under public/: the build copies everything there to the site, where anyone could download it without a link.`,
        fix: `Move the PDF out of public/, to ${['documents', ...file.split('/').slice(1)].join('/')} beside page.config.json, and write that path here.`,
      })
      return
    }
    if (!isFile(full)) {
      findings.push({
        at,
        message: `${describePath(at)} names ${describeValue(file)}, but there is no such file in this launch's folder (${displayFolder(root)}).`,
        fix: `Put the PDF at ${displayFolder(full)} (the path is from the folder of page.config.json, and case-sensitive), or correct the path.`,
      })
      return
    }
    if (!headOf(full, 5).startsWith('%PDF-')) {
      findings.push({
        at,
        message: `${describePath(at)} names ${describeValue(file)}, which is not a PDF file.`,
        fix: 'Save the document as a PDF and name that file here.',
      })
    }
  })
  documents.list.forEach((entry, i) => {
    if (!isObject(entry) || !Array.isArray(entry.phases)) return
    entry.phases.forEach((name, j) => {
      if (typeof name !== 'string' || phases?.includes(name)) return
      const at = ['documents', 'list', i, 'phases', j]
      findings.push({
        at,
        message:
          phases === undefined
            ? `${describePath(at)} names the phase "${name}", but this launch has no phases.`
            : `${describePath(at)} names the phase "${name}", which is not one of this launch's phases (${listWords(phases)}).`,
        fix:
          phases === undefined
            ? 'Delete "phases" from this document: it is then offered to every registrant.'
            : 'Write one of the phase names of "phases", or delete it.',
      })
    })
  })
  return findings
}

/** Whether `file` is a file (not a folder, not missing). */
export function isFile(file: string): boolean {
  try {
    return statSync(file).isFile()
  } catch {
    return false
  }
}

function displayFolder(dir: string): string {
  const relative = path.relative(process.cwd(), dir)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : dir
}

/** Each image the config names is a file in the launch's public/ folder (with the nearest name when it is not). */
export function checkImages(data: unknown, publicDir: string): Finding[] {
  const findings: Finding[] = []
  let available: string[] | undefined
  for (const image of listConfigImages(data)) {
    const file = publicFileOf(publicDir, image.src)
    if (file === undefined) {
      findings.push(climbingImageFinding([...image.path, 'src'], image.src))
      continue
    }
    if (isFile(file)) continue
    available ??= listFiles(publicDir)
    const meant = closest(image.src, available)
    const at = [...image.path, 'src']
    findings.push({
      at,
      message: `${describePath(at)} names ${describeValue(image.src)}, but there is no such file in ${displayDir(publicDir)}${
        meant ? `; did you mean '${meant}'?` : '.'
      }`,
      fix: available.length
        ? `Put the image at ${displayDir(file)}, or correct the name (it is case-sensitive; "/images/x.jpg" means public/images/x.jpg).`
        : `There are no files in ${displayDir(publicDir)} at all: images live in a folder named "public" beside the config file.`,
    })
  }
  return findings
}

/** Files under `dir` as site paths ("/images/hero.jpg"); [] when the folder is missing. */
function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => `/${path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/')}`)
  } catch {
    return []
  }
}

function displayDir(dir: string): string {
  const relative = path.relative(process.cwd(), dir)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : dir
}

/**
 * The file an image's site path ("/images/hero.jpg") names inside `publicDir`, or undefined when the path could leave
 * it: not starting with "/", a ".", ".." or empty part, a backslash, or a result outside the folder once resolved.
 */
export function publicFileOf(publicDir: string, src: string): string | undefined {
  const parts = src.split('/').slice(1)
  if (!src.startsWith('/') || src.includes('\\') || parts.some((part) => part === '' || part === '.' || part === '..'))
    return undefined
  const root = path.resolve(publicDir)
  const file = path.resolve(root, ...parts)
  return file.startsWith(root + path.sep) ? file : undefined
}

/** The problem of an image path that climbs out of the launch's public/ folder. */
export function climbingImageFinding(at: (string | number)[], src: unknown): Finding {
  return {
    at,
    message: `${describePath(at)} ${describeValue(src)} climbs out of the launch's public/ folder: a picture must be one of this launch's own files.`,
    fix: 'Name a file inside public/, starting with "/", e.g. "/images/hero.jpg": no "." or ".." parts, no "//" and no "\\".',
  }
}
