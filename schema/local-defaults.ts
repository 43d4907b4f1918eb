/**
 * The anon key a local build and the Node server agree on when no hosted Supabase project is configured
 * (VITE_SUPABASE_ANON_KEY unset in the browser, ANON_KEY unset on the server). It is public by design: it
 * only says "this request comes from our page", exactly like a Supabase anon/publishable key. Browser code
 * may import this file: it has no imports of its own.
 */
export const localAnonKey = 'local-anon-key'
