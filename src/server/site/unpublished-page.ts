import { escapeHtml } from '../delivery/escape-html.ts'

/**
 * The answer on a launch's addresses while it has no version to serve (never built, or its first config is broken):
 * 503 with a plain page naming that launch, so a new launch looks not yet published rather than broken, and never
 * shows another launch's page. No script, no style, nothing from the config but its name.
 */
export function unpublishedAnswer(siteName: string, method: string): Response {
  const headers = {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'retry-after': '60',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  }
  const name = escapeHtml(siteName)
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex"><title>${name}: not published yet</title></head><body><main><h1>${name}</h1><p>This site is not published yet. Please come back soon.</p></main></body></html>`
  return new Response(method === 'HEAD' ? null : html, { status: 503, headers })
}
