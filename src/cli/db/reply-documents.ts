import { existsSync, mkdirSync, renameSync } from 'node:fs'
import path from 'node:path'
import { documentIdOf } from '../../../schema/documents.ts'
import { insertMembers, removeMember, replaceValue } from '../../config/json-edit.ts'

// Part of `npm run migrate` (src/cli/migrate.ts), kept here because src/cli is full: the reply's documents as they were
// before issue 24 (labels with public URLs, reply.documents) made into the launch's tracked documents.

/** A PDF to move out of public/ (both paths from the launch's folder). */
export type DocumentMove = { from: string; to: string }

/** What moving the reply's documents changes: the new text, a line for each change, and the files to move. */
export type ReplyDocumentsChange = { text: string; changes: string[]; moves: DocumentMove[] }

type Link = { label?: unknown; url?: unknown }
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * The path under public/ a link points at when it is one of the launch's own files: an address on one of its origins
 * (seo.canonicalUrl's, launch.origins) or a path alone, naming a PDF that is there. Undefined for anything else.
 */
function ownFile(url: unknown, origins: readonly string[], launchDir: string): string | undefined {
  if (typeof url !== 'string') return undefined
  let pathname: string
  try {
    const parsed = new URL(url, 'https://same.invalid')
    if (parsed.origin !== 'https://same.invalid' && !origins.includes(parsed.origin)) return undefined
    pathname = decodeURIComponent(parsed.pathname)
  } catch {
    return undefined
  }
  const relative = pathname.replace(/^\/+/, '')
  if (!/\.pdf$/i.test(relative) || relative.split('/').some((part) => part === '..' || part === '')) return undefined
  return existsSync(path.join(launchDir, 'public', relative)) ? relative : undefined
}

/**
 * Turns the reply's links to the launch's own PDFs (reply.documents and reply.realtor.documents entries whose address
 * is a file in its public/ folder) into entries of `documents.list`, each moved to documents/ (a document has no
 * public address), and keeps every other link (another site's) as a plain link. A buyer's document becomes "buyers"
 * only when realtors had their own list, a realtor's "realtors", so each registrant still receives what they did.
 * The text changes only where it must. Nothing to do: undefined.
 */
export function moveReplyDocuments(text: string, launchDir: string): ReplyDocumentsChange | undefined {
  const data = JSON.parse(text) as Record<string, unknown>
  const reply = isObject(data.reply) ? data.reply : undefined
  if (!reply) return undefined
  const seo = isObject(data.seo) ? data.seo : {}
  const launch = isObject(data.launch) ? data.launch : {}
  const listed: unknown[] = Array.isArray(launch.origins) ? launch.origins : []
  const origins = [seo.canonicalUrl, ...listed].flatMap((value) => {
    try {
      return typeof value === 'string' ? [new URL(value).origin] : []
    } catch {
      return []
    }
  })
  const realtor = isObject(reply.realtor) ? reply.realtor : undefined
  const lists: Array<{ at: string[]; links: Link[]; audience?: 'buyers' | 'realtors' }> = [
    {
      at: ['reply'],
      links: Array.isArray(reply.documents) ? (reply.documents as Link[]) : [],
      ...(Array.isArray(realtor?.documents) ? { audience: 'buyers' as const } : {}),
    },
    {
      at: ['reply', 'realtor'],
      links: Array.isArray(realtor?.documents) ? (realtor.documents as Link[]) : [],
      audience: 'realtors',
    },
  ]
  const existing =
    isObject(data.documents) && Array.isArray(data.documents.list)
      ? (data.documents.list as Array<{ file?: unknown }>)
      : []
  const taken = new Set(existing.flatMap((d) => (typeof d.file === 'string' ? [documentIdOf(d.file)] : [])))
  const added: Array<Record<string, string>> = []
  const moves: DocumentMove[] = []
  const changes: string[] = []
  let next = text
  for (const list of lists) {
    const kept: Link[] = []
    for (const link of list.links) {
      const file = ownFile(link.url, origins, launchDir)
      const title = typeof link.label === 'string' ? link.label : ''
      if (!file || !title || taken.has(documentIdOf(file))) {
        kept.push(link)
        continue
      }
      taken.add(documentIdOf(file))
      const to = `documents/${file.split('/').at(-1)}`
      moves.push({ from: `public/${file}`, to })
      added.push({ title, file: to, ...(list.audience ? { audience: list.audience } : {}) })
      changes.push(
        `${[...list.at, 'documents'].join('.')}: "${title}" (${String(link.url)}) is now a tracked document, documents/${file.split('/').at(-1)} (moved out of public/)`,
      )
    }
    if (kept.length === list.links.length) continue
    next =
      kept.length > 0
        ? replaceValue(next, [...list.at, 'documents'], JSON.stringify(kept))
        : removeMember(next, list.at, 'documents')
  }
  if (added.length === 0) return undefined
  const entries = added.map((entry) => JSON.stringify(entry).replaceAll('":', '": ').replaceAll(',"', ', "'))
  next =
    existing.length > 0
      ? replaceValue(
          next,
          ['documents', 'list'],
          `[\n      ${[...existing.map((entry) => JSON.stringify(entry)), ...entries].join(',\n      ')}\n    ]`,
        )
      : insertMembers(
          next,
          [],
          [['documents', `{\n    "list": [\n      ${entries.join(',\n      ')}\n    ]\n  }`]],
          'reply',
        )
  return { text: next, changes, moves }
}

/** Moves the files (paths from `launchDir`); a file already at its new place is left where it was. */
export function moveDocumentFiles(launchDir: string, moves: readonly DocumentMove[]): void {
  for (const move of moves) {
    const to = path.join(launchDir, move.to)
    if (existsSync(to)) continue
    mkdirSync(path.dirname(to), { recursive: true })
    renameSync(path.join(launchDir, move.from), to)
  }
}
