/**
 * A realtor's worksheet link (issue 45): `<base>/worksheets?id=<submission id>&sig=<HMAC>`, signed like the document
 * links (delivery/document-links.ts) with the same helper and secret, over "worksheet:<id>". It names the realtor's
 * registration by its opaque submission id and nothing else; no one can make another. It does not expire: it works
 * while the realtor's registration is kept, and only during a worksheet window does it take a worksheet.
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import { signLink, uuidPattern, type LinkSettings } from '../delivery/unsubscribe.ts'

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
