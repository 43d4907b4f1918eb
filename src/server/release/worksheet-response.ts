/**
 * How the worksheet pages answer (worksheet-routes.ts, worksheet-link-request.ts): never cached, indexed or referred
 * elsewhere (a worksheet page's address is a key), with their own strict policy allowing their one <style> by its hash.
 */
import type { Context } from 'hono'

/** A worksheet page's answer with its headers. */
export async function worksheetPageResponse(
  c: Context,
  html: string,
  status: number,
  css: string,
  headers = {},
): Promise<Response> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(css))
  const hash = btoa(String.fromCharCode(...new Uint8Array(digest)))
  return new Response(c.req.method === 'HEAD' ? null : html, {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      // Not no-referrer: with it a browser sends its form post with "Origin: null", which the post's check refuses.
      // same-origin sends the signed address to no other site.
      'referrer-policy': 'same-origin',
      'x-robots-tag': 'noindex',
      'content-security-policy': `default-src 'none'; style-src 'sha256-${hash}'; font-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
      ...headers,
    },
  })
}
