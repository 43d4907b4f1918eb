import { localAnonKey } from '../../../schema/local-defaults.ts'
import { keySchema, type Variable } from '../settings/read-settings.ts'

/**
 * The site room's settings: which page configs are built and served, where the built sites are, where the page
 * sends registrations (read at build), and where the Node server listens.
 * Each: its JSON Schema and default, its description (.env.example, docs/deploy.md) and the plain words of its
 * problem (`fix`, `expected`); src/server/env.ts reads them.
 */
export const siteSettings = {
  PAGE_CONFIG: {
    type: 'string',
    default: 'page.config.json',
    description:
      'Set: only this page config is built and served, as the one launch (launches/ is left out). Unset: page.config.json and every launch in launches/.',
    fix: 'name a page.config.json file',
  },
  DIST_DIR: {
    type: 'string',
    default: 'dist',
    description: "Where the build writes each launch's site (DIST_DIR/<slug>/) and the Node server serves them from.",
    fix: 'name a folder',
  },
  PUBLISH_COMMAND: {
    type: 'string',
    description:
      "A shell command run after each publish of a launch (studio Publish and Restore, and each phase's start), to put its built folder live on a static host: it gets PUBLISH_SLUG (the launch) and PUBLISH_DIR (the folder, its pages those of the phase in force) as environment variables. Unset: nothing is sent anywhere.",
    fix: 'write a command, e.g. netlify deploy --dir "$PUBLISH_DIR" --prod',
  },
  VITE_SUPABASE_URL: {
    type: 'string',
    format: 'http-url',
    description: "Where the page sends registrations (read at build). Unset: the site's own origin (the Node server).",
    expected: 'a URL',
    fix: 'write https://<project>.supabase.co',
  },
  VITE_SUPABASE_ANON_KEY: {
    ...keySchema,
    default: localAnonKey,
    description: 'The public anon / publishable key the page sends with each registration (read at build).',
    fix: 'copy the key again, without spaces or line breaks',
  },
  PORT: {
    type: 'integer',
    minimum: 0,
    maximum: 65_535,
    default: 3000,
    description:
      'The port the Node server listens on (0 picks a free one). The Edge Function listens only outside Supabase, and only when PORT is set.',
    fix: 'use a whole number from 0 to 65535',
  },
  HOST: {
    type: 'string',
    default: '0.0.0.0',
    description:
      'The address the Node server listens on: every interface, or 127.0.0.1 when TRUST_PROXY is set (only the proxy on this machine should reach it). Outside Supabase the Edge Function listens on 127.0.0.1 by default.',
    fix: 'write an address such as 127.0.0.1 or 0.0.0.0',
  },
  PUBLISHED_REFRESH_SECONDS: {
    type: 'integer',
    minimum: 1,
    maximum: 3600,
    default: 10,
    description:
      "Supabase only: how often, in seconds, the Edge Function looks in the database for a launch's newer published version (a publish from the studio reaches it within this time, with no redeploy).",
    fix: 'use a whole number of seconds from 1 to 3600',
  },
} as const satisfies Record<string, Variable>
