import type { Variable } from '../settings/read-settings.ts'

/**
 * The leads page's setting: the sales team's password (unset: /leads is off).
 * Each: its JSON Schema and default, its description (.env.example, docs/deploy.md) and the plain words of its
 * problem (`fix`, `expected`); src/server/env.ts reads them.
 */
export const leadsPageSettings = {
  LEADS_PASSWORD: {
    type: 'string',
    minLength: 12,
    secret: true,
    description: "The sales team's password for the leads page at /leads (registrations, search, CSV). Unset: the page is off and /leads answers 404.",
    expected: 'long enough',
    fix: 'use at least 12 characters (a few unrelated words make a good one), or unset it to turn the leads page off',
  },
} as const satisfies Record<string, Variable>
