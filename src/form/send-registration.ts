import type { SupabaseClient } from '@supabase/supabase-js'
import { localAnonKey } from '../../schema/local-defaults.ts'
import type { FieldMessages } from '../../schema/registration-rules.ts'

/** The outcome of one call: success, or the error with any field messages the server gave. */
export type SendOutcome = { ok: true } | { ok: false; error: unknown; fieldErrors?: FieldMessages }

let client: Promise<SupabaseClient> | undefined

// Created once, on first use: supabase-js is ~50 KiB that the page does not need to paint.
function getClient(): Promise<SupabaseClient> {
  client ??= import('@supabase/supabase-js').then(({ createClient }) =>
    createClient(
      import.meta.env.VITE_SUPABASE_URL || window.location.origin,
      import.meta.env.VITE_SUPABASE_ANON_KEY || localAnonKey,
      {
        auth: { storage: window.localStorage, persistSession: true, autoRefreshToken: true },
      },
    ),
  )
  client.catch(() => {
    client = undefined // a failed chunk download is retried on the next submit
  })
  return client
}

async function fieldErrorsOf(error: unknown): Promise<FieldMessages | undefined> {
  const context = (error as { context?: unknown }).context
  if (!(context instanceof Response) || context.status !== 400) return undefined
  try {
    const body = (await context.clone().json()) as { errors?: unknown }
    if (body.errors && typeof body.errors === 'object') return body.errors as FieldMessages
  } catch {
    // not JSON: no field messages to show
  }
  return undefined
}

/** Calls the send-contact-email function with the registration; never throws. */
export async function sendRegistration(body: Record<string, unknown>): Promise<SendOutcome> {
  try {
    const response = await (await getClient()).functions.invoke('send-contact-email', { body })
    // supabase-js types a failure's error as any: it is read as unknown, as fieldErrorsOf does.
    const error: unknown = response.error
    if (!error) return { ok: true }
    const fieldErrors = await fieldErrorsOf(error)
    return fieldErrors ? { ok: false, error, fieldErrors } : { ok: false, error }
  } catch (error) {
    return { ok: false, error }
  }
}
