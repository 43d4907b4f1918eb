/**
 * A registrant's personal document links (schema/documents.ts): `<base>/documents/<document>?id=<submission
 * id>&exp=<unix
 * seconds>&sig=<HMAC>`. The signature is an HMAC-SHA256 of "document:<id>:<document>:<exp>" with the secret that signs
 * the unsubscribe links (unsubscribe.ts), so a link names one lead and one document until one moment, and no one can
 * make another. It carries no personal data: the submission id is an opaque reference to the lead. Web-standard only.
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import type { FunctionDocument } from '../../../schema/documents.ts'
import type { HmacSha256 } from '../store/suppression.ts'
import { signLink, uuidPattern, type LinkSettings } from './unsubscribe.ts'

/** The signature of one document link. */
export async function documentSignature(
  secret: string,
  submissionId: string,
  document: string,
  expires: number,
  hmac?: HmacSha256,
): Promise<string> {
  return signLink(secret, `document:${submissionId.toLowerCase()}:${document}:${expires}`, hmac)
}

/** The link to `document` for a submission, working until `expires`. */
export async function documentUrl(
  links: LinkSettings,
  submissionId: string,
  document: string,
  expires: Date,
): Promise<string> {
  const id = submissionId.toLowerCase()
  const exp = Math.floor(expires.getTime() / 1000)
  return `${links.baseUrl}/documents/${encodeURIComponent(document)}?id=${id}&exp=${exp}&sig=${await documentSignature(links.secret, id, document, exp, links.hmac)}`
}

/** A document as a reply lists it: its title and the registrant's own link. */
export type DocumentLink = { title: string; url: string }

/** The links to `documents` for a submission, each working `days` days from `now`. */
export async function documentLinksFor(
  links: LinkSettings,
  submissionId: string,
  documents: readonly FunctionDocument[],
  now: Date,
  days: number,
): Promise<DocumentLink[]> {
  const expires = new Date(now.getTime() + days * 86_400_000)
  return Promise.all(
    documents.map(async (d) => ({ title: d.title, url: await documentUrl(links, submissionId, d.id, expires) })),
  )
}

/** What a document link's address says, read and checked. */
export type CheckedLink =
  /** Not a link of ours at all (no id, no signature, a number that is not one): nothing to offer. */
  | { kind: 'malformed' }
  /** Well formed, but no secret signed it (a character changed): the lead it names may still ask for fresh links. */
  | { kind: 'forged'; submissionId: string }
  | { kind: 'expired'; submissionId: string; document: string }
  | { kind: 'valid'; submissionId: string; document: string }

/** Reads a document link's parts and checks its signature with each secret, then its time (`now`). */
export async function checkDocumentLink(
  secrets: readonly string[],
  document: string,
  query: { id?: string | undefined; exp?: string | undefined; sig?: string | undefined },
  now: Date,
): Promise<CheckedLink> {
  const id = (query.id ?? '').toLowerCase()
  const exp = query.exp ?? ''
  const sig = query.sig ?? ''
  if (!uuidPattern.test(id) || !/^\d{1,12}$/.test(exp) || !sig) return { kind: 'malformed' }
  let signed = false
  for (const secret of secrets)
    if (await timingSafeEqual(await documentSignature(secret, id, document, Number(exp)), sig)) signed = true
  if (!signed) return { kind: 'forged', submissionId: id }
  return Number(exp) * 1000 <= now.getTime()
    ? { kind: 'expired', submissionId: id, document }
    : { kind: 'valid', submissionId: id, document }
}

// A realtor's worksheet link (issue 45): `<base>/worksheets?id=<submission id>&sig=<HMAC>`, signed like the document
// links above with the same helper and secret, over "worksheet:<id>" (a document link's payload can never be one). It
// names the realtor's registration by its opaque submission id and nothing else; no one can make another. It does not
// expire: it works while the realtor's registration is kept, and takes a worksheet only in a worksheet window.

/** The path of the worksheet page under the function's paths. */
export const worksheetsPath = '/worksheets'

/** The signature of a realtor's worksheet link. */
export function worksheetSignature(secret: string, submissionId: string, hmac?: LinkSettings['hmac']): Promise<string> {
  return signLink(secret, `worksheet:${submissionId.toLowerCase()}`, hmac)
}

/** The worksheet page's address for a realtor's registration. */
export async function worksheetUrl(links: LinkSettings, submissionId: string): Promise<string> {
  const id = submissionId.toLowerCase()
  return `${links.baseUrl}${worksheetsPath}?id=${id}&sig=${await worksheetSignature(links.secret, id, links.hmac)}`
}

/** The submission id of a well-signed worksheet link (with any of `secrets`), or undefined. */
export async function checkWorksheetLink(
  secrets: readonly string[],
  query: { id?: string | undefined; sig?: string | undefined },
): Promise<string | undefined> {
  const id = (query.id ?? '').toLowerCase()
  const sig = query.sig ?? ''
  if (!uuidPattern.test(id) || !/^[A-Za-z0-9_-]{43}$/.test(sig)) return undefined
  let signed = false
  for (const secret of secrets) if (await timingSafeEqual(await worksheetSignature(secret, id), sig)) signed = true
  return signed ? id : undefined
}
