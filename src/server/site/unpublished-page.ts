import { unpublishedPageDefaults, type Site } from '../../../schema/site.ts'
import { escapeHtml } from '../delivery/escape-html.ts'

/**
 * The answer on a launch's addresses while it has no version to serve (never built, or its first config is broken):
 * 503 with a plain page naming that launch, so a new launch looks not yet published rather than broken, and never
 * shows another launch's page. No script, no style, nothing from the config but its name and these words.
 */
export function unpublishedAnswer(siteName: string, method: string, words?: Site['unpublished']): Response {
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'retry-after': '60',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  }
  const texts = { ...unpublishedPageDefaults, ...words }
  const fill = (line: string) => escapeHtml(line.replaceAll('{site}', () => siteName))
  const head = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${fill(texts.title)}</title>`
  const html = `<!doctype html><html lang="en"><head>${head}</head><body><main><h1>${escapeHtml(siteName)}</h1><p>${fill(texts.text)}</p></main></body></html>`
  return new Response(method === 'HEAD' ? null : html, { status: 503, headers })
}
