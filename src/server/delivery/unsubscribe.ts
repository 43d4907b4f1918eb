/**
 * The unsubscribe link of every reply (CASL; RFC 8058 one-click): `<base>/unsubscribe?id=<submission id>&sig=<HMAC>`.
 * GET shows a confirmation page in the site's look whose one button POSTs back to the same address; only a POST
 * records the withdrawal (mail scanners follow links, they do not submit forms). A mail program's one-click POST
 * (`List-Unsubscribe=One-Click`) records it the same way. The signature is an HMAC-SHA256 of the submission id with a
 * server secret, so no sign-in is needed and no one can withdraw someone else. The submission id names one lead, and
 * so its launch. Web-standard only: Node and Deno serve the same routes.
 */
import { timingSafeEqual } from 'hono/utils/buffer'
import { Hono, type Context } from 'hono'
import type { ReplyConfig } from '../../../schema/reply.ts'
import { escapeHtml } from './escape-html.ts'
import type { LeadStore } from '../store/store.ts'
import type { HmacSha256 } from '../store/suppression.ts'

/** The secret that signs links, and the public address of the function the links point to. */
export type LinkSettings = {
  /** At least 16 random characters (UNSUBSCRIBE_SECRET, or DATA_DIR/unsubscribe.key on the Node server). */
  secret: string
  /**
   * The function's public address without a trailing slash, e.g. https://example.com/functions/v1/send-contact-email.
   */
  baseUrl: string
  /** Signs on the caller's thread (the Node entry's node:crypto, the same bytes); without it, Web Crypto. */
  hmac?: HmacSha256 | undefined
}

const encoder = new TextEncoder()
/** A submission id as a link carries it (lower case). */
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

function base64Url(bytes: Uint8Array): string {
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

// Imported once per secret: importKey costs as much as the signature, and every reply's link is signed.
const signingKeys = new Map<string, Promise<CryptoKey>>()

/**
 * A link's signature: base64url HMAC-SHA256 of `payload` with `secret` (Web Crypto, or `hmac` where the entry gives
 * one).
 */
export async function signLink(secret: string, payload: string, hmac?: HmacSha256): Promise<string> {
  if (hmac) return base64Url(hmac(secret, payload))
  let key = signingKeys.get(secret)
  if (!key) {
    key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
    signingKeys.set(secret, key)
  }
  return base64Url(new Uint8Array(await crypto.subtle.sign('HMAC', await key, encoder.encode(payload))))
}

/** The signature of a submission's unsubscribe link: base64url HMAC-SHA256 of "unsubscribe:<id>". */
export function unsubscribeSignature(secret: string, submissionId: string, hmac?: HmacSha256): Promise<string> {
  return signLink(secret, `unsubscribe:${submissionId.toLowerCase()}`, hmac)
}

/** The unsubscribe address for a submission. */
export async function unsubscribeUrl(links: LinkSettings, submissionId: string): Promise<string> {
  const id = submissionId.toLowerCase()
  return `${links.baseUrl}/unsubscribe?id=${id}&sig=${await unsubscribeSignature(links.secret, id, links.hmac)}`
}

async function validSignature(secret: string, id: string, sig: string): Promise<boolean> {
  return timingSafeEqual(await unsubscribeSignature(secret, id), sig)
}

/** What an unsubscribe page says, in whose words: the texts of the launch the link's lead registered for. */
export type UnsubscribePageTexts = {
  texts: ReplyConfig['unsubscribe']
  siteName: string
  /** The page's language tag (site.lang). */
  lang: string
  /** The site's stylesheet, as the built pages inline it (so the CSP hash matches); absent: unstyled. */
  pageCss?: string | undefined
}

/** What the unsubscribe routes need. */
export type UnsubscribeDeps = {
  store: LeadStore
  /** The secrets a link may be signed with (every launch's; normally one). */
  secrets: string[]
  /** The page's texts for a well-signed link's submission id, or (undefined) for a link that is not. */
  textsFor(submissionId: string | undefined): Promise<UnsubscribePageTexts>
  clock: () => Date
  log: { info(message: string): void; error(message: string, error?: unknown): void }
}

/** What a notice page shows (noticePage): every text final, the button's label if it has one. */
export type NoticePage = {
  lang: string
  pageCss?: string | undefined
  title: string
  heading: string
  text: string
  button?: string | undefined
  status: number
  headers?: Record<string, string>
}

/**
 * A small page of the function's own, in the launch's styles: a heading, a line, and optionally one button that posts
 * back to this very address, so a signed link's parts travel with it: its action is the query alone, resolved against
 * the address the browser shows (behind Supabase's gateway the function sees /send-contact-email/… while the browser
 * has /functions/v1/send-contact-email/…). Never indexed, never cached,
 * and no referrer: the address carries a signature. The unsubscribe and document-link pages.
 */
export function noticePage(c: Context, page: NoticePage): Response {
  const url = new URL(c.req.url)
  const css = page.pageCss === undefined ? '' : `<style>${page.pageCss}</style>`
  // The button posts to the query alone, resolved against the address the browser shows (behind a gateway too).
  const button = page.button
    ? `<form method="post" action="${escapeHtml(url.search || '?')}">` +
      `<button type="submit" class="btn-primary mt-8">${escapeHtml(page.button)}</button></form>`
    : ''
  const html = `<!doctype html>
<html lang="${escapeHtml(page.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(page.title)}</title>
${css}
</head>
<body>
<main class="flex min-h-screen items-center justify-center bg-cream-100 px-5">
<div class="mx-auto max-w-2xl text-center">
<h1 class="section-heading">${escapeHtml(page.heading)}</h1>
<p class="mt-4 text-xl text-ink-muted">${escapeHtml(page.text)}</p>
${button}
</div>
</main>
</body>
</html>
`
  return new Response(c.req.method === 'HEAD' ? null : html, {
    status: page.status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex',
      ...page.headers,
    },
  })
}

/** Hono routes for `<path>/unsubscribe`, for each of the function's paths. */
export function createUnsubscribeRoutes(paths: string[], deps: UnsubscribeDeps): Hono {
  function page(
    c: Context,
    words: UnsubscribePageTexts,
    status: 200 | 400 | 403 | 405 | 500,
    heading: string,
    text: string,
    button?: string,
  ): Response {
    const fill = (line: string) => line.replaceAll('{site}', () => words.siteName)
    return noticePage(c, {
      lang: words.lang,
      pageCss: words.pageCss,
      title: fill(words.texts.pageTitle),
      heading: fill(heading),
      text: fill(text),
      button,
      status,
      headers: status === 405 ? { allow: 'GET, POST' } : {},
    })
  }

  async function refused(c: Context, status: 400 | 403 | 405): Promise<Response> {
    const words = await deps.textsFor(undefined)
    return page(c, words, status, words.texts.heading, words.texts.invalidText)
  }

  /** The submission id of a well-signed link, or the answer to a broken one. */
  async function checked(c: Context): Promise<{ id: string } | { refusal: Response }> {
    const id = (c.req.query('id') ?? '').toLowerCase()
    const sig = c.req.query('sig') ?? ''
    if (!uuidPattern.test(id) || !sig) return { refusal: await refused(c, 400) }
    for (const secret of deps.secrets) if (await validSignature(secret, id, sig)) return { id }
    return { refusal: await refused(c, 403) }
  }

  const app = new Hono()
  for (const path of paths) {
    app.all(`${path}/unsubscribe`, async (c) => {
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.method !== 'POST') return refused(c, 405)
      const link = await checked(c)
      if ('refusal' in link) return link.refusal
      const words = await deps.textsFor(link.id)
      const t = words.texts
      if (c.req.method !== 'POST') return page(c, words, 200, t.heading, t.text, t.button)
      // The body (List-Unsubscribe=One-Click from a mail program, or nothing from our own form) changes nothing.
      try {
        const withdrawal = await deps.store.withdrawLead(link.id, deps.clock())
        deps.log.info(
          withdrawal
            ? `unsubscribe: lead ${withdrawal.leadId} withdrew${withdrawal.already ? ' (again)' : ''}`
            : 'unsubscribe: no lead for a well-signed link',
        )
      } catch (error) {
        deps.log.error('unsubscribe: could not record a withdrawal', error)
        return page(c, words, 500, t.heading, t.errorText)
      }
      return page(c, words, 200, t.doneHeading, t.doneText)
    })
  }
  return app
}
