/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** The hosted Supabase project URL; unset: the function on this site's own origin. */
  readonly VITE_SUPABASE_URL?: string
  /** The project's public anon (publishable) key; unset: the local server's default key. */
  readonly VITE_SUPABASE_ANON_KEY?: string
}
