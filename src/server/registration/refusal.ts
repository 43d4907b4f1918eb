import { HTTPException } from 'hono/http-exception'
import type { FieldMessages } from '../../../schema/registration-rules.ts'

/** The statuses the function refuses a request with, each with a plain message. */
export type RefusalStatus = 400 | 401 | 403 | 405 | 409 | 413 | 415 | 429 | 500

/** A JSON answer as the function gives every one: UTF-8, never cached. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  })
}

/** What a refusal carries besides its status and message. */
export type RefusalDetails = {
  /** The config's message per field, for a 400. */
  errors?: FieldMessages
  headers?: Record<string, string>
  /** What the visitor typed, to show the form again with it (a plain form post). */
  values?: Record<string, unknown>
  /** Hidden inputs for the form shown again (the address of the page the form was first sent from). */
  carried?: Record<string, string>
}

/**
 * An HTTPException carrying the function's JSON refusal, `{ error }` (plus `errors` per field for a 400). Throw it
 * anywhere in a handler or middleware; the app's onError answers with it (with a page instead, to a plain form
 * post, from the details in its `cause`).
 */
export function refusal(status: RefusalStatus, message: string, extra: RefusalDetails = {}): HTTPException {
  const body = extra.errors ? { error: message, errors: extra.errors } : { error: message }
  return new HTTPException(status, { message, res: jsonAnswer(status, body, extra.headers), cause: extra })
}
