import type { Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { StudioError, StudioProblem } from '../../protocol.ts'

/** A refusal in the protocol's shape (src/studio/protocol.ts's StudioError). */
export function refuse(
  c: Context,
  status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500,
  error: string,
  problems?: StudioProblem[],
) {
  return c.json<StudioError>(problems ? { error, problems } : { error }, status)
}

/** The request's JSON object body; undefined when it is not one. */
export async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  try {
    const body: unknown = await c.req.json()
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** The limit of a config's text sent to the API: 5 MB. */
export const textLimit = bodyLimit({
  maxSize: 5 * 1024 * 1024,
  onError: (c) => refuse(c, 413, 'The text is larger than 5 MB.'),
})

/** The limit of a small JSON request (people, restore, two-factor): 16 KB. */
export const smallLimit = bodyLimit({
  maxSize: 16 * 1024,
  onError: (c) => refuse(c, 413, 'That request is too large.'),
})

/** A message of a body (a version note), trimmed and cut to 500 characters; undefined when there is none. */
export function messageOf(body: Record<string, unknown>): string | undefined {
  return typeof body.message === 'string' && body.message.trim() ? body.message.trim().slice(0, 500) : undefined
}
