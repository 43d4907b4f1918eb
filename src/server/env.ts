import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createRegistrationAjv, isEmailAddress } from '../../schema/registration-ajv.ts'
import { standardWebhookDelaysMs, type RetryPolicy } from './outbox.ts'

/**
 * Every environment variable the site's commands, the Node server and the Edge Function read, described once as
 * a JSON Schema (`environmentVariables`: type, default, description) and checked with Ajv (`useDefaults`,
 * `coerceTypes`). Each entry reads its variables here, once, and gets either complete settings or every problem
 * in plain words. Pure functions, web-standard APIs only: the entries pass `process.env` or `Deno.env.toObject()`.
 */

/** Environment variables as a runtime hands them over. */
export type Env = Record<string, string | undefined>

/** Either complete settings, or every problem found. */
export type EnvResult<T> = { ok: true; config: T } | { ok: false; problems: string[] }

/**
 * One variable: a JSON Schema of its value plus three annotations for the problem message: `expected` (what a
 * good value is: "…, which is not an e-mail address"), `fix` (what to write) and `secret` (never print the value).
 * Values are strings, except `type: 'array'` (comma-separated) and `type: 'object'` (JSON).
 */
type Variable = {
  description: string
  fix: string
  expected?: string
  secret?: true
  default?: unknown
  type: 'string' | 'integer' | 'number' | 'array' | 'object' | readonly ['boolean', 'integer']
  [keyword: string]: unknown
}

const keySchema = { type: 'string', pattern: '^\\S+$' } as const
const originSchema = { anyOf: [{ const: '*' }, { type: 'string', format: 'origin' }] } as const

/** The schema of every variable, with its default: the one place settings are described. */
export const environmentVariables = {
  PAGE_CONFIG: {
    type: 'string',
    default: 'page.config.json',
    description: 'Set: only this page config is built and served, as the one launch (launches/ is left out). Unset: page.config.json and every launch in launches/.',
    fix: 'name a page.config.json file',
  },
  DIST_DIR: {
    type: 'string',
    default: 'dist',
    description: "Where the build writes each launch's site (DIST_DIR/<slug>/) and the Node server serves them from.",
    fix: 'name a folder',
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
    description: 'The port the Node server listens on (0 picks a free one). The Edge Function listens only outside Supabase, and only when PORT is set.',
    fix: 'use a whole number from 0 to 65535',
  },
  HOST: {
    type: 'string',
    default: '0.0.0.0',
    description:
      'The address the Node server listens on: every interface, or 127.0.0.1 when TRUST_PROXY is set (only the proxy on this machine should reach it). Outside Supabase the Edge Function listens on 127.0.0.1 by default.',
    fix: 'write an address such as 127.0.0.1 or 0.0.0.0',
  },
  RETENTION_DAYS: {
    type: 'integer',
    minimum: 1,
    maximum: 36_500,
    description:
      'Days a registration is kept: older ones are erased (with their notifications and .eml copies) at start and once a day. Unset: kept until erased by hand (npm run leads:erase).',
    fix: 'use a whole number of days from 1 to 36500, or leave it unset to keep registrations',
  },
  DATA_DIR: {
    type: 'string',
    default: '.data',
    description: 'Where the Node server keeps leads.sqlite, its lock and the .eml outbox; npm run leads:export reads it.',
    fix: 'name a folder',
  },
  LEADS_PASSWORD: {
    type: 'string',
    minLength: 12,
    secret: true,
    description: "The sales team's password for the leads page at /leads (registrations, search, CSV). Unset: the page is off and /leads answers 404.",
    expected: 'long enough',
    fix: 'use at least 12 characters (a few unrelated words make a good one), or unset it to turn the leads page off',
  },
  ANON_KEY: {
    type: 'array',
    items: keySchema,
    description: 'Keys accepted from the browser (apikey header or Bearer token), comma-separated. Default: VITE_SUPABASE_ANON_KEY.',
    fix: 'copy the key again, without spaces or line breaks',
  },
  SMTP_URL: {
    type: 'string',
    format: 'smtp-url',
    secret: true,
    description: 'The SMTP server for notifications. Unset: each notification is written as an .eml file to DATA_DIR/outbox.',
    expected: 'a valid address',
    fix: 'use smtp://user:password@host:587 or smtps://user:password@host:465',
  },
  MAIL_FROM: {
    type: 'string',
    format: 'mail-from',
    description: 'The From address of notifications: an address, or a name and an address.',
    fix: 'write an address, or a name and an address, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>"',
  },
  NOTIFY_EMAIL: {
    type: 'string',
    format: 'email',
    description: "Who receives each registration. Default: site.email in page.config.json.",
    expected: 'an e-mail address',
    fix: 'write who receives each registration, e.g. sales@example.com',
  },
  NOTIFY_TIME_ZONE: {
    type: 'string',
    format: 'time-zone',
    default: 'America/Toronto',
    description: 'The time zone of the "Received" time in notifications (an IANA name).',
    expected: 'a time zone',
    fix: 'use an IANA name such as America/Toronto',
  },
  ALLOWED_ORIGINS: {
    type: 'array',
    items: originSchema,
    default: [],
    description: "Other origins whose pages may call the function, comma-separated, or * for any. The site's own origin is always allowed.",
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
  // Registration (the Edge Function's caller): which header names the visitor.
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
  MAIL_RETRY_MIN_SECONDS: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 7 * 86_400,
    default: 30,
    description: 'The first retry delay of a failed notification, in seconds; it doubles each time.',
    fix: 'use a number of seconds greater than 0',
  },
  MAIL_RETRY_MAX_SECONDS: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 7 * 86_400,
    default: 3600,
    description: 'The longest retry delay of a failed notification, in seconds.',
    fix: 'use a number of seconds greater than 0',
  },
  DATABASE_URL: {
    type: 'string',
    format: 'postgres-url',
    secret: true,
    description:
      "The Edge Function's Postgres as the least-privileged lead_writer role; wins over SUPABASE_DB_URL (the owner). npm run leads:erase reads from it when set.",
    expected: 'a valid address',
    fix: 'write postgresql://lead_writer:password@host:5432/postgres',
  },
  MAIL_MAX_ATTEMPTS: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 10,
    description: 'Attempts a notification or reply gets before it is kept as failed (npm run outbox:retry sends it again). A permanent refusal (SMTP 5xx) ends it at once.',
    fix: 'use a whole number from 1 to 100',
  },
  WEBHOOK_URL: {
    type: 'string',
    format: 'http-url',
    secret: true,
    description: "Where every new lead is POSTed as signed JSON (your CRM's webhook, docs/webhook.md). Unset: no webhook.",
    expected: 'a URL',
    fix: "write the https:// address of your CRM's webhook",
  },
  WEBHOOK_SECRET: {
    type: 'string',
    minLength: 16,
    secret: true,
    description: "The secret each webhook call is signed with (HMAC-SHA256); the CRM checks the signature with it.",
    expected: 'a usable secret',
    fix: 'use at least 16 random characters, e.g. from `openssl rand -hex 32`, and give the same to the CRM',
  },
  WEBHOOK_RETRY_SECONDS: {
    type: 'array',
    items: { type: 'number', exclusiveMinimum: 0, maximum: 7 * 86_400 },
    minItems: 1,
    maxItems: 30,
    default: standardWebhookDelaysMs.map((ms) => ms / 1000),
    description: "Seconds between webhook attempts, comma-separated; one more attempt than delays. Default Standard Webhooks' schedule (about 28 hours).",
    fix: 'give seconds greater than 0, comma-separated, e.g. 5,300,1800,7200,18000,36000,36000',
  },
  UNSUBSCRIBE_SECRET: {
    type: 'string',
    minLength: 16,
    secret: true,
    description: 'Signs the unsubscribe links in replies. Node server: default a key made once in DATA_DIR/unsubscribe.key. Required on Supabase when the config has a reply.',
    expected: 'a usable secret',
    fix: 'use at least 16 random characters, e.g. from `openssl rand -hex 32`',
  },
  SUPPRESSION_SECRET: {
    type: 'string',
    minLength: 16,
    secret: true,
    description:
      'The key of the suppression list (keyed hashes of addresses that withdrew consent and were then erased). Node server: a key made once in DATA_DIR/suppression.key. With PostgreSQL: the same value for npm run leads:erase and the Edge Function, which then never replies to such an address.',
    expected: 'a usable secret',
    fix: 'use at least 16 random characters, the same every time, e.g. from `openssl rand -hex 32`',
  },
  PUBLIC_FUNCTION_URL: {
    type: 'string',
    format: 'http-url',
    description:
      "The function's public address, for the unsubscribe links in replies. Default: the config's seo.canonicalUrl origin + /functions/v1/send-contact-email (Node), SUPABASE_URL + /functions/v1/send-contact-email (Supabase).",
    expected: 'a URL',
    fix: 'write e.g. https://www.example.com/functions/v1/send-contact-email',
  },
  SUPABASE_URL: {
    type: 'string',
    format: 'http-url',
    description: "The project's address; Supabase sets it for deployed functions (the unsubscribe links are made from it).",
    expected: 'a URL',
    fix: 'write https://<project-ref>.supabase.co',
  },
  SUPABASE_DB_URL: {
    type: 'string',
    format: 'postgres-url',
    secret: true,
    description: "The function's Postgres; Supabase sets it for deployed functions.",
    expected: 'a valid address',
    fix: 'Supabase sets it for deployed functions; elsewhere write postgresql://user:password@host:5432/postgres',
  },
  SUPABASE_ANON_KEY: {
    type: 'array',
    items: keySchema,
    description: 'The project\'s legacy anon key; Supabase sets it for deployed functions.',
    fix: 'copy the key again, without spaces or line breaks',
  },
  SUPABASE_PUBLISHABLE_KEYS: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description: "The project's publishable keys as a JSON object; Supabase sets it for deployed functions.",
    expected: 'a JSON object of keys',
    fix: 'write e.g. {"default":"sb_publishable_…"}',
  },
  RESEND_API_KEY: {
    type: 'string',
    secret: true,
    description: 'The Resend API key the Edge Function sends notifications with (Edge Functions cannot use SMTP).',
    fix: 'notifications are sent through Resend: `supabase secrets set RESEND_API_KEY=re_…`',
  },
  RESEND_API_URL: {
    type: 'string',
    format: 'http-url',
    default: 'https://api.resend.com',
    description: "Resend's API address; change it only for testing.",
    expected: 'a URL',
    fix: 'use https://api.resend.com',
  },
  OUTBOX_SECRET: {
    type: 'string',
    minLength: 16,
    // A Bearer token (RFC 6750 token68): anything else could never match the Authorization header.
    pattern: '^[A-Za-z0-9._~+/-]+=*$',
    secret: true,
    description: 'The secret the scheduled retry of pending mail sends as a Bearer token to …/send-contact-email/deliver-pending.',
    expected: 'a usable secret',
    fix: 'use at least 16 random letters and digits, e.g. from `openssl rand -hex 24`',
  },
} as const satisfies Record<string, Variable>

type Name = keyof typeof environmentVariables
type ValueOf<V> = V extends { type: 'integer' | 'number' }
  ? number
  : V extends { type: 'array' }
    ? string[]
    : V extends { type: 'object' }
      ? Record<string, string>
      : V extends { type: readonly ['boolean', 'integer'] }
        ? boolean | number
        : string
/** Checked values: present when set or defaulted. */
type Values<N extends Name> = { [K in N]?: ValueOf<(typeof environmentVariables)[K]> }

/** Which variables an entry reads, which it needs, and what it reads differently from the common description. */
type Reading<N extends Name> = {
  names: readonly N[]
  required?: readonly N[]
  /** Variables needed only when another is set, e.g. MAIL_FROM with SMTP_URL (draft-07 `dependencies`). */
  dependencies?: Partial<Record<N, readonly N[]>>
  changes?: Partial<Record<N, Partial<Variable> & { default?: unknown }>>
}

let ajv: Ajv | undefined

/** The registration form's Ajv and formats (so `email` means what it means in the form), plus the settings' own. */
function settingsAjv(): Ajv {
  if (ajv) return ajv
  ajv = createRegistrationAjv({ allErrors: true, useDefaults: true, coerceTypes: true, strict: true, strictTypes: false })
  for (const keyword of ['expected', 'fix', 'secret']) ajv.addKeyword({ keyword })
  const urlWith = (...protocols: string[]) => (value: string) =>
    URL.canParse(value) && protocols.includes(new URL(value).protocol) && new URL(value).hostname !== '' && !/\s/.test(value)
  ajv.addFormat('http-url', urlWith('https:', 'http:'))
  ajv.addFormat('smtp-url', urlWith('smtp:', 'smtps:'))
  ajv.addFormat('postgres-url', urlWith('postgres:', 'postgresql:'))
  ajv.addFormat('origin', (value) => urlWith('https:', 'http:')(value) && new URL(value).origin === value.replace(/\/$/, ''))
  ajv.addFormat('mail-from', (value) => !/[\r\n]/.test(value) && isEmailAddress(/<([^<>]+)>$/.exec(value)?.[1] ?? value))
  ajv.addFormat('time-zone', (value) => {
    try {
      new Intl.DateTimeFormat('en-CA', { timeZone: value })
      return true
    } catch {
      return false
    }
  })
  return ajv
}

const compiled = new Map<Reading<Name>, ValidateFunction>()

/** The schema of what one entry reads. */
function schemaOf<N extends Name>(reading: Reading<N>) {
  const properties = Object.fromEntries(
    reading.names.map((name) => {
      const variable: Record<string, unknown> = { ...environmentVariables[name], ...reading.changes?.[name] }
      if (variable.default === undefined) delete variable.default
      return [name, variable]
    }),
  )
  return { type: 'object', properties, required: reading.required ?? [], dependencies: reading.dependencies ?? {} }
}

/** Env strings to the values the schema describes: trimmed, empty as unset, lists split at commas, objects parsed. */
function prepare(env: Env, names: readonly Name[]): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  for (const name of names) {
    const raw = env[name]?.trim()
    if (!raw) continue
    const { type } = environmentVariables[name]
    if (type === 'array') {
      data[name] = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    } else if (type === 'object') {
      try {
        data[name] = JSON.parse(raw) as unknown
      } catch {
        data[name] = raw
      }
    } else {
      data[name] = raw
    }
  }
  return data
}

/** One plain sentence for one Ajv error: the variable, its value (unless secret), what to write. */
function explain(error: ErrorObject, env: Env, variables: Record<string, Variable>): { name: string; text: string } {
  const params = error.params as { missingProperty?: string; property?: string }
  if (params.missingProperty !== undefined) {
    const name = params.missingProperty
    const because = error.keyword === 'dependencies' ? `${params.property} is set, so ` : ''
    return { name, text: `${name} is missing: ${because}${variables[name]!.fix}.` }
  }
  const [name = '', item] = error.instancePath.split('/').slice(1)
  const variable = variables[name]!
  const { fix, expected, secret } = variable
  const withDefault = variable.default === undefined || Array.isArray(variable.default) ? fix : `${fix} (default ${String(variable.default)})`
  if (item !== undefined) {
    const list = prepare(env, [name as Name])[name]
    const value = Array.isArray(list) ? String(list[Number(item)]) : ''
    return { name, text: `${name} has "${value}": ${fix}.` }
  }
  if (secret) return { name, text: `${name} is not ${expected ?? 'usable'}: ${fix}.` }
  const value = env[name]?.trim()
  return { name, text: `${name} is "${value}"${expected ? `, which is not ${expected}` : ''}: ${withDefault}.` }
}

/** Checks the variables one entry reads: defaults filled in, numbers and booleans coerced, every problem listed. */
function check<N extends Name>(env: Env, reading: Reading<N>): { values: Values<N>; problems: string[] } {
  let validate = compiled.get(reading)
  if (!validate) {
    validate = settingsAjv().compile(schemaOf(reading))
    compiled.set(reading, validate)
  }
  const data = prepare(env, reading.names)
  const variables = schemaOf(reading).properties as Record<string, Variable>
  const byName = new Map<string, string>()
  if (!validate(data)) {
    for (const error of validate.errors ?? []) {
      const { name, text } = explain(error, env, variables)
      const key = `${name}${error.instancePath}`
      if (!byName.has(key)) byName.set(key, text)
      // A value with a problem is no value: nothing is built from it.
      delete data[name]
    }
  }
  // In the order the variables are described, one problem per variable (or list item).
  const order = (key: string) => reading.names.indexOf(key.split('/')[0] as N)
  const problems = [...byName.entries()].sort(([a], [b]) => order(a) - order(b)).map(([, text]) => text)
  return { values: data as Values<N>, problems }
}

/** Settings both entries share. */
export type CommonConfig = {
  /** Override of the config's contact e-mail as recipient of notifications. */
  notifyEmail: string | undefined
  anonKeys: string[]
  allowedOrigins: string[]
  rateLimitPerMinute: number
  trustProxy: number
  bodyLimitBytes: number
  retry: RetryPolicy
  timeZone: string
  /** The CRM webhook (WEBHOOK_URL and WEBHOOK_SECRET), or undefined when off. */
  webhook: { url: string; secret: string } | undefined
  /** Delays between webhook attempts (WEBHOOK_RETRY_SECONDS). */
  webhookDelaysMs: number[]
  /** Signs unsubscribe links (UNSUBSCRIBE_SECRET); the Node server keeps one in DATA_DIR when unset. */
  unsubscribeSecret: string | undefined
  /** The function's public address for links in e-mails (PUBLIC_FUNCTION_URL), without a trailing slash. */
  publicFunctionUrl: string | undefined
}

/** The settings both entries hand to createApp unchanged: keys, origins, limits, client address, time zone. */
export function requestHandlingOf(config: CommonConfig) {
  const { anonKeys, allowedOrigins, bodyLimitBytes, rateLimitPerMinute, trustProxy, timeZone } = config
  return { anonKeys, allowedOrigins, bodyLimitBytes, rateLimitPerMinute, trustProxy, timeZone }
}

/** The Node server's settings (src/server/node.ts). Paths are as given: relative ones are resolved by the entry. */
export type NodeServerConfig = CommonConfig & {
  port: number
  host: string
  /** The proxies believed for the visitor's address (forwarded-address.ts): TRUST_PROXY hops from TRUSTED_PROXIES. */
  proxies: { hops: number; ranges: string[] }
  /** Set when TRUST_PROXY is on but HOST lets anyone reach the port directly: what to tell the operator at start. */
  exposedWarning: string | undefined
  pageConfig: string
  dataDir: string
  distDir: string
  /** VITE_SUPABASE_URL, when the page posts to a hosted project: the CSP allows it. */
  supabaseUrl: string | undefined
  /** SMTP when SMTP_URL is set; otherwise .eml files in DATA_DIR/outbox (`from` undefined: the entry picks one). */
  mail: { kind: 'smtp'; url: string; from: string } | { kind: 'eml'; from: string | undefined }
  /** RETENTION_DAYS: leads older than this are erased at start and daily; undefined keeps them. */
  retentionDays: number | undefined
  /** The sales team's password for the leads page at /leads; the page is off (404) without it. */
  leadsPassword: string | undefined
}

/** The Supabase Edge Function's settings (supabase/functions/send-contact-email/index.ts). */
export type EdgeConfig = CommonConfig & {
  /** The platform's header holding the visitor's address (client-address.ts), or undefined to count by the peer. */
  clientIpHeader: string | undefined
  /** Where the visitor's address comes from and why, in words: the function logs it at start. */
  clientIpSource: string
  databaseUrl: string
  resend: { apiKey: string; from: string; baseUrl: string }
  outboxSecret: string
  /** Keys the suppression list (SUPPRESSION_SECRET); unset: only the leads' own withdrawals are checked. */
  suppressionSecret: string | undefined
  /** Only for running the function outside Supabase (tests, `deno run`): where Deno.serve listens. */
  listen: { port: number; host: string } | undefined
}

/** What the site's build reads (src/cli/build.ts, vite.config.ts). Paths are as given, relative to the working folder. */
export type BuildSettings = {
  pageConfig: string
  distDir: string
  /** Where the page sends registrations; undefined: the site's own origin. */
  supabaseUrl: string | undefined
  anonKey: string
}

const commonNames = [
  'NOTIFY_EMAIL',
  'NOTIFY_TIME_ZONE',
  'ALLOWED_ORIGINS',
  'RATE_LIMIT_PER_MINUTE',
  'TRUST_PROXY',
  'MAX_BODY_BYTES',
  'MAIL_RETRY_MIN_SECONDS',
  'MAIL_RETRY_MAX_SECONDS',
  'MAIL_MAX_ATTEMPTS',
  'WEBHOOK_URL',
  'WEBHOOK_SECRET',
  'WEBHOOK_RETRY_SECONDS',
  'UNSUBSCRIBE_SECRET',
  'PUBLIC_FUNCTION_URL',
] as const satisfies readonly Name[]

// A webhook is signed, or not sent: its address and its secret go together.
const webhookDependencies = { WEBHOOK_URL: ['WEBHOOK_SECRET'], WEBHOOK_SECRET: ['WEBHOOK_URL'] } as const

const nodeReading: Reading<Name> = {
  names: ['PORT', 'HOST', 'TRUSTED_PROXIES', 'PAGE_CONFIG', 'DATA_DIR', 'RETENTION_DAYS', 'DIST_DIR', 'VITE_SUPABASE_URL', 'VITE_SUPABASE_ANON_KEY', 'ANON_KEY', 'SMTP_URL', 'MAIL_FROM', 'LEADS_PASSWORD', ...commonNames],
  dependencies: { SMTP_URL: ['MAIL_FROM'], ...webhookDependencies },
}

const edgeReading: Reading<Name> = {
  names: ['DATABASE_URL', 'SUPABASE_DB_URL', 'SUPABASE_URL', 'RESEND_API_KEY', 'RESEND_API_URL', 'MAIL_FROM', 'OUTBOX_SECRET', 'ANON_KEY', 'SUPABASE_ANON_KEY', 'SUPABASE_PUBLISHABLE_KEYS', 'CLIENT_IP_HEADER', 'SUPPRESSION_SECRET', ...commonNames, 'PORT', 'HOST'],
  required: ['SUPABASE_DB_URL', 'RESEND_API_KEY', 'MAIL_FROM', 'OUTBOX_SECRET'],
  dependencies: webhookDependencies,
  changes: {
    MAIL_FROM: { fix: 'the address notifications come from, on a domain verified in Resend, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>"' },
    // Deno.serve listens only outside Supabase, and only when PORT is set.
    PORT: { default: undefined },
    HOST: { default: '127.0.0.1' },
  },
}

const buildReading: Reading<Name> = { names: ['PAGE_CONFIG', 'DIST_DIR', 'VITE_SUPABASE_URL', 'VITE_SUPABASE_ANON_KEY'] }
const exportReading: Reading<Name> = { names: ['PAGE_CONFIG', 'DATA_DIR'] }
const erasureReading: Reading<Name> = { names: ['DATA_DIR', 'DATABASE_URL', 'SUPPRESSION_SECRET'] }

function commonOf(values: Values<Name>, anonKeys: string[], problems: string[]): CommonConfig {
  const retryMin = values.MAIL_RETRY_MIN_SECONDS!
  const retryMax = values.MAIL_RETRY_MAX_SECONDS!
  if (retryMin > retryMax) problems.push(`MAIL_RETRY_MIN_SECONDS (${retryMin}) is larger than MAIL_RETRY_MAX_SECONDS (${retryMax}).`)
  return {
    notifyEmail: values.NOTIFY_EMAIL,
    anonKeys: [...new Set(anonKeys)],
    allowedOrigins: (values.ALLOWED_ORIGINS ?? []).map((o) => (o === '*' ? o : o.replace(/\/$/, ''))),
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE!,
    trustProxy: Number(values.TRUST_PROXY ?? 0),
    bodyLimitBytes: values.MAX_BODY_BYTES!,
    retry: { minDelayMs: retryMin * 1000, maxDelayMs: retryMax * 1000, maxAttempts: values.MAIL_MAX_ATTEMPTS! },
    timeZone: values.NOTIFY_TIME_ZONE!,
    webhook: values.WEBHOOK_URL && values.WEBHOOK_SECRET ? { url: values.WEBHOOK_URL, secret: values.WEBHOOK_SECRET } : undefined,
    webhookDelaysMs: values.WEBHOOK_RETRY_SECONDS!.map((s) => Math.round(Number(s) * 1000)),
    unsubscribeSecret: values.UNSUBSCRIBE_SECRET,
    publicFunctionUrl: values.PUBLIC_FUNCTION_URL?.replace(/\/+$/, ''),
  }
}

function result<T>(config: T, problems: string[]): EnvResult<T> {
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config }
}

/** Reads the Node server's environment (npm start, src/cli/serve.ts). */
export function parseNodeEnv(env: Env): EnvResult<NodeServerConfig> {
  const { values, problems } = check(env, nodeReading)
  // The page falls back to the same local key, and a shared .env may set VITE_SUPABASE_ANON_KEY for both.
  const keys = values.ANON_KEY ?? []
  const common = commonOf(values, keys.length > 0 ? keys : [values.VITE_SUPABASE_ANON_KEY!], problems)
  const from = values.MAIL_FROM
  // Behind a proxy on this machine, only the proxy should reach the port: a visitor who reaches it directly is
  // counted by its own address, but is better not let in at all.
  const host = env.HOST?.trim() ? values.HOST! : common.trustProxy > 0 ? '127.0.0.1' : values.HOST!
  const loopback = host === 'localhost' || host === '::1' || host.startsWith('127.')
  return result(
    {
      ...common,
      port: values.PORT!,
      host,
      proxies: { hops: common.trustProxy, ranges: values.TRUSTED_PROXIES! },
      exposedWarning:
        common.trustProxy > 0 && !loopback
          ? `TRUST_PROXY is set but HOST=${host} lets anyone reach port ${values.PORT} directly, around the proxy. Forwarded headers are believed only from TRUSTED_PROXIES (${values.TRUSTED_PROXIES!.join(', ')}); set HOST=127.0.0.1 if the proxy runs on this machine.`
          : undefined,
      pageConfig: values.PAGE_CONFIG!,
      dataDir: values.DATA_DIR!,
      distDir: values.DIST_DIR!,
      supabaseUrl: values.VITE_SUPABASE_URL,
      mail: values.SMTP_URL ? { kind: 'smtp', url: values.SMTP_URL, from: from ?? '' } : { kind: 'eml', from },
      retentionDays: values.RETENTION_DAYS,
      leadsPassword: values.LEADS_PASSWORD,
    },
    problems,
  )
}

/**
 * Reads the Edge Function's environment (Supabase provides SUPABASE_DB_URL, SUPABASE_URL and the public keys
 * itself). With `needsLinks` (any launch has a reply) the unsubscribe links need UNSUBSCRIBE_SECRET and an address.
 */
export function parseEdgeEnv(env: Env, options: { needsLinks?: boolean } = {}): EnvResult<EdgeConfig> {
  const { values, problems } = check(env, edgeReading)
  const anonKeys = [...(values.ANON_KEY ?? []), ...(values.SUPABASE_ANON_KEY ?? []), ...Object.values(values.SUPABASE_PUBLISHABLE_KEYS ?? {}).filter(Boolean)]
  if (anonKeys.length === 0) problems.push('No anon key: set ANON_KEY (Supabase normally provides SUPABASE_ANON_KEY / SUPABASE_PUBLISHABLE_KEYS).')
  const common = commonOf(values, anonKeys, problems)
  if (options.needsLinks) {
    if (!common.unsubscribeSecret && !env.UNSUBSCRIBE_SECRET?.trim()) {
      problems.push("UNSUBSCRIBE_SECRET is missing: a launch's page.config.json has a reply, whose unsubscribe links it signs; use at least 16 random characters.")
    }
    if (!common.publicFunctionUrl && values.SUPABASE_URL) common.publicFunctionUrl = `${values.SUPABASE_URL.replace(/\/+$/, '')}/functions/v1/send-contact-email`
    if (!common.publicFunctionUrl) problems.push("PUBLIC_FUNCTION_URL is missing: the unsubscribe links need the function's public address (Supabase sets SUPABASE_URL, from which it is made).")
  }
  return result(
    {
      ...common,
      ...clientIpOf(values.CLIENT_IP_HEADER, env.SB_REGION),
      databaseUrl: values.DATABASE_URL ?? values.SUPABASE_DB_URL ?? '',
      resend: { apiKey: values.RESEND_API_KEY ?? '', from: values.MAIL_FROM ?? '', baseUrl: values.RESEND_API_URL! },
      outboxSecret: values.OUTBOX_SECRET ?? '',
      suppressionSecret: values.SUPPRESSION_SECRET,
      listen: values.PORT === undefined ? undefined : { port: values.PORT, host: values.HOST! },
    },
    problems,
  )
}

/**
 * The header the Edge Function reads the visitor's address from, and why (for its start-up log). Supabase's hosted
 * platform sets SB_REGION (https://supabase.com/docs/guides/functions/secrets, "In a hosted environment") and runs
 * behind Cloudflare, which overwrites CF-Connecting-IP; anywhere else a caller could write that header itself.
 */
function clientIpOf(header: string | undefined, region: string | undefined): { clientIpHeader: string | undefined; clientIpSource: string } {
  if (header !== undefined) {
    const name = header.toLowerCase()
    return name === 'none'
      ? { clientIpHeader: undefined, clientIpSource: "the connection's address (CLIENT_IP_HEADER=none)" }
      : { clientIpHeader: name, clientIpSource: `the ${name} header (CLIENT_IP_HEADER)` }
  }
  if (region?.trim()) return { clientIpHeader: 'cf-connecting-ip', clientIpSource: `the cf-connecting-ip header (Supabase's hosted platform: SB_REGION=${region.trim()})` }
  return { clientIpHeader: undefined, clientIpSource: "the connection's address (not Supabase's hosted platform: no SB_REGION; CF-Connecting-IP is not trusted)" }
}

/** Settings that cannot be used; the message lists every problem. */
export class SettingsError extends Error {
  override name = 'SettingsError'
  constructor(readonly problems: string[], who: string) {
    super(formatEnvProblems(problems, who))
  }
}

/** What the build reads, defaults filled in; throws SettingsError (e.g. a VITE_SUPABASE_URL that is not a URL). */
export function readBuildSettings(env: Env): BuildSettings {
  const { values, problems } = check(env, buildReading)
  if (problems.length > 0) throw new SettingsError(problems, 'The site cannot be built')
  return { pageConfig: values.PAGE_CONFIG!, distDir: values.DIST_DIR!, supabaseUrl: values.VITE_SUPABASE_URL, anonKey: values.VITE_SUPABASE_ANON_KEY! }
}

/** What `npm run leads:export` reads: the data folder and the page config (for the column order). */
export function readExportSettings(env: Env): { pageConfig: string; dataDir: string } {
  const { values, problems } = check(env, exportReading)
  if (problems.length > 0) throw new SettingsError(problems, 'The export cannot start')
  return { pageConfig: values.PAGE_CONFIG!, dataDir: values.DATA_DIR! }
}

/** What `npm run leads:erase` reads: the data folder, or PostgreSQL and the suppression list's key. */
export function readErasureSettings(env: Env): { dataDir: string; databaseUrl: string | undefined; suppressionSecret: string | undefined } {
  const { values, problems } = check(env, erasureReading)
  if (problems.length > 0) throw new SettingsError(problems, 'The erasure cannot start')
  return { dataDir: values.DATA_DIR!, databaseUrl: values.DATABASE_URL, suppressionSecret: values.SUPPRESSION_SECRET }
}

/** The message to print when the environment is not usable. */
export function formatEnvProblems(problems: string[], who = 'The server cannot start'): string {
  return [
    `${who}: ${problems.length === 1 ? 'one setting needs' : `${problems.length} settings need`} fixing (see .env.example):`,
    ...problems.map((p) => `  - ${p}`),
  ].join('\n')
}
