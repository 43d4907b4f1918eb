import { keySchema, type Variable } from '../settings/read-settings.ts'

const originSchema = { anyOf: [{ const: '*' }, { type: 'string', format: 'origin' }] } as const

/**
 * The registration room's settings: the keys a caller may offer, the origins allowed, the rate limit, how the
 * visitor's address is found behind proxies, and the largest body.
 * Each: its JSON Schema and default, its description (.env.example, docs/deploy.md) and the plain words of its
 * problem (`fix`, `expected`); src/server/env.ts reads them.
 */
export const registrationSettings = {
  ANON_KEY: {
    type: 'array',
    items: keySchema,
    description:
      'Keys accepted from the browser (apikey header or Bearer token), comma-separated. Default: VITE_SUPABASE_ANON_KEY.',
    fix: 'copy the key again, without spaces or line breaks',
  },
  SUPABASE_ANON_KEY: {
    type: 'array',
    items: keySchema,
    description: "The project's legacy anon key; Supabase sets it for deployed functions.",
    fix: 'copy the key again, without spaces or line breaks',
  },
  SUPABASE_PUBLISHABLE_KEYS: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "The project's publishable keys as a JSON object; Supabase sets it for deployed functions.",
    expected: 'a JSON object of keys',
    fix: 'write e.g. {"default":"sb_publishable_…"}',
  },
  ALLOWED_ORIGINS: {
    type: 'array',
    items: originSchema,
    default: [],
    description:
      "Other origins whose pages may call the function, comma-separated, or * for any. The site's own origin is always allowed.",
    fix: 'list origins only (scheme://host[:port], no path), comma-separated, or *',
  },
  RATE_LIMIT_PER_MINUTE: {
    type: 'integer',
    minimum: 0,
    maximum: 100_000,
    default: 5,
    description: 'Registrations a minute per client address; 0 turns the limit off.',
    fix: 'use a whole number from 0 (no limit) to 100000',
  },
  TRUST_PROXY: {
    type: ['boolean', 'integer'],
    minimum: 0,
    maximum: 10,
    default: false,
    description:
      'How many reverse proxies in front append to X-Forwarded-For: true for one. The visitor is the address the nearest trusted proxy appended; a peer outside TRUSTED_PROXIES is taken as the visitor itself. Unset: the header is ignored.',
    fix: 'use true (one proxy in front), false, or the number of proxies in front, up to 10',
  },
  TRUSTED_PROXIES: {
    type: 'array',
    items: { type: 'string', pattern: '^(loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(/[0-9]{1,3})?)$' },
    default: ['loopback'],
    description:
      'Where the proxies of TRUST_PROXY connect from, comma-separated: addresses, CIDR ranges, or loopback, linklocal, uniquelocal. Forwarded headers from any other peer are ignored.',
    fix: 'list addresses or ranges, e.g. TRUSTED_PROXIES=loopback,10.0.0.0/8',
  },
  CLIENT_IP_HEADER: {
    type: 'string',
    pattern: '^[A-Za-z0-9-]+$',
    description:
      "Supabase only: the header the platform in front sets to the visitor's address and overwrites, so a client cannot choose it; none counts by the connection's address. Unset: cf-connecting-ip on Supabase's hosted platform (which sets SB_REGION and sits behind Cloudflare), none anywhere else (edge:serve, self-hosted), where any caller could write that header.",
    fix: 'give a header name such as cf-connecting-ip, or none',
  },
  MAX_BODY_BYTES: {
    type: 'integer',
    minimum: 1024,
    maximum: 1024 * 1024,
    default: 16 * 1024,
    description: 'The largest accepted request body in bytes; a registration is under 2 KB.',
    fix: 'use a whole number from 1024 to 1048576',
  },
} as const satisfies Record<string, Variable>
