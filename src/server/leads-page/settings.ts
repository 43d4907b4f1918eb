import type { Variable } from '../settings/read-settings.ts'

/**
 * The leads page's setting: the sales team's shared password (unset: studio accounts alone sign in at /leads).
 * Each: its JSON Schema and default, its description (.env.example, docs/deploy.md) and the plain words of its
 * problem (`fix`, `expected`); src/server/env.ts reads them.
 */
export const leadsPageSettings = {
  LEADS_PASSWORD: {
    type: 'string',
    minLength: 12,
    secret: true,
    description:
      'A password the whole sales team shares for the leads page at /leads (registrations, search, CSV), for installs from before studio accounts. Unset: only studio accounts sign in there (until the studio has one, /leads answers 404).',
    expected: 'long enough',
    fix: 'use at least 12 characters (a few unrelated words make a good one), or unset it and give each salesperson a studio account (npm run studio:invite -- --email … --role sales)',
  },
} as const satisfies Record<string, Variable>
