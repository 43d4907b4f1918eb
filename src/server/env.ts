import { localAnonKey } from '../../schema/local-defaults.ts'
import type { RetryPolicy } from './outbox.ts'

/**
 * Reading the environment, once, at start-up: every entry parses its variables here and either gets a complete
 * config or the full list of what is missing or malformed, in plain words. Pure functions: the entries pass
 * `process.env` or `Deno.env.toObject()` in.
 */

/** Environment variables as a runtime hands them over. */
export type Env = Record<string, string | undefined>

/** Either a complete config, or every problem found. */
export type EnvResult<T> = { ok: true; config: T } | { ok: false; problems: string[] }

/** Settings both entries share. */
export type CommonConfig = {
  /** Override of the config's contact e-mail as recipient of notifications. */
  notifyEmail: string | undefined
  anonKeys: string[]
  allowedOrigins: string[]
  rateLimitPerMinute: number
  trustProxy: number
  /** A header holding the visitor's address, set by the platform in front (see AppDeps.clientIpHeader). */
  clientIpHeader: string | undefined
  bodyLimitBytes: number
  retry: RetryPolicy
  timeZone: string
}

/** The Node server's settings (src/server/node.ts). Paths are as given: relative ones are resolved by the entry. */
/** The settings both entries hand to createApp unchanged: keys, origins, limits, client address, time zone. */
export function requestHandlingOf(config: CommonConfig) {
  const { anonKeys, allowedOrigins, bodyLimitBytes, rateLimitPerMinute, trustProxy, clientIpHeader, timeZone } = config
  return { anonKeys, allowedOrigins, bodyLimitBytes, rateLimitPerMinute, trustProxy, clientIpHeader, timeZone }
}

export type NodeServerConfig = CommonConfig & {
  port: number
  host: string
  dataDir: string
  distDir: string
  /** SMTP when SMTP_URL is set; otherwise .eml files in DATA_DIR/outbox (`from` undefined: the entry picks one). */
  mail: { kind: 'smtp'; url: string; from: string } | { kind: 'eml'; from: string | undefined }
}

/** The Supabase Edge Function's settings (supabase/functions/send-contact-email/index.ts). */
export type EdgeConfig = CommonConfig & {
  databaseUrl: string
  resend: { apiKey: string; from: string; baseUrl: string }
  outboxSecret: string
  /** Only for running the function outside Supabase (tests, `deno run`): where Deno.serve listens. */
  listen: { port: number; host: string } | undefined
}

const emailPattern = /^[^\s@<>(),;:"\\[\]]+@[^\s@<>(),;:"\\[\]]+\.[^\s@<>(),;:"\\[\]]+$/

/** Collects problems while reading variables. */
class Reader {
  readonly problems: string[] = []
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name]?.trim()
    return value === '' ? undefined : value
  }

  required(name: string, why: string): string {
    const value = this.raw(name)
    if (value === undefined) this.problems.push(`${name} is missing: ${why}`)
    return value ?? ''
  }

  integer(name: string, fallback: number, min: number, max: number, hint: string): number {
    const value = this.raw(name)
    if (value === undefined) return fallback
    const n = Number(value)
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min || n > max) {
      this.problems.push(`${name} is "${value}": use a whole number from ${min} to ${max} (${hint}).`)
      return fallback
    }
    return n
  }

  seconds(name: string, fallback: number, hint: string): number {
    const value = this.raw(name)
    if (value === undefined) return fallback
    const n = Number(value)
    if (!/^\d+(\.\d+)?$/.test(value) || !(n > 0) || n > 86_400 * 7) {
      this.problems.push(`${name} is "${value}": use a number of seconds greater than 0 (${hint}).`)
      return fallback
    }
    return n
  }

  email(name: string, hint: string): string | undefined {
    const value = this.raw(name)
    if (value !== undefined && !emailPattern.test(value)) this.problems.push(`${name} is "${value}", which is not an e-mail address (${hint}).`)
    return value
  }

  /** A From address: "addr@example.com" or "Name <addr@example.com>". */
  from(name: string, required: string | undefined): string {
    const value = this.raw(name)
    if (value === undefined) {
      if (required) this.problems.push(`${name} is missing: ${required}`)
      return ''
    }
    const address = /<([^<>]+)>$/.exec(value)?.[1] ?? value
    if (/[\r\n]/.test(value) || !emailPattern.test(address)) {
      this.problems.push(`${name} is "${value}": write an address, or a name and an address, e.g. ${name}="Maple Hollow <no-reply@example.com>".`)
    }
    return value
  }

  url(name: string, protocols: string[], example: string, value = this.raw(name)): string | undefined {
    if (value === undefined) return undefined
    try {
      const url = new URL(value)
      if (!protocols.includes(url.protocol) || !url.hostname) throw new Error('protocol')
    } catch {
      this.problems.push(`${name} is not a valid address: use ${example}.`)
    }
    return value
  }

  list(name: string): string[] {
    return (this.raw(name) ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  }

  origins(name: string): string[] {
    const origins = this.list(name)
    for (const origin of origins) {
      if (origin === '*') continue
      let ok = false
      try {
        const url = new URL(origin)
        ok = (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin.replace(/\/$/, '')
      } catch {
        ok = false
      }
      if (!ok) this.problems.push(`${name} has "${origin}": list origins only (scheme://host[:port], no path), comma-separated, or *.`)
    }
    return origins.map((o) => (o === '*' ? o : o.replace(/\/$/, '')))
  }

  trustProxy(name: string): number {
    const value = this.raw(name)?.toLowerCase()
    if (value === undefined || value === 'false' || value === '0' || value === 'no') return 0
    if (value === 'true' || value === 'yes') return 1
    if (/^\d+$/.test(value) && Number(value) <= 10) return Number(value)
    this.problems.push(`${name} is "${value}": use true (one proxy in front), false, or the number of proxies in front (up to 10).`)
    return 0
  }

  headerName(name: string, fallback: string | undefined): string | undefined {
    const value = this.raw(name)?.toLowerCase()
    if (value === undefined) return fallback
    if (value === 'none') return undefined
    if (!/^[a-z0-9-]+$/.test(value)) this.problems.push(`${name} is "${value}": give a header name such as x-real-ip, or none.`)
    return value
  }

  timeZone(name: string, fallback: string): string {
    const value = this.raw(name) ?? fallback
    try {
      new Intl.DateTimeFormat('en-CA', { timeZone: value })
    } catch {
      this.problems.push(`${name} is "${value}", which is not a time zone: use an IANA name such as America/Toronto.`)
    }
    return value
  }

  keys(names: string[], extra: string[] = []): string[] {
    const keys = [...names.flatMap((n) => this.list(n)), ...extra]
    for (const key of keys) if (/\s/.test(key)) this.problems.push('An anon key contains spaces: copy it again, without line breaks.')
    return [...new Set(keys)]
  }
}

function common(read: Reader, anonKeys: string[], defaultIpHeader?: string): CommonConfig {
  const retryMin = read.seconds('MAIL_RETRY_MIN_SECONDS', 30, 'first retry delay of a failed notification, default 30')
  const retryMax = read.seconds('MAIL_RETRY_MAX_SECONDS', 3600, 'longest retry delay, default 3600')
  if (retryMin > retryMax) read.problems.push(`MAIL_RETRY_MIN_SECONDS (${retryMin}) is larger than MAIL_RETRY_MAX_SECONDS (${retryMax}).`)
  return {
    notifyEmail: read.email('NOTIFY_EMAIL', 'who receives each registration; default the contact e-mail in page.config.json'),
    anonKeys,
    allowedOrigins: read.origins('ALLOWED_ORIGINS'),
    rateLimitPerMinute: read.integer('RATE_LIMIT_PER_MINUTE', 5, 0, 100_000, 'registrations a minute per client IP, 0 turns the limit off, default 5'),
    trustProxy: read.trustProxy('TRUST_PROXY'),
    clientIpHeader: read.headerName('CLIENT_IP_HEADER', defaultIpHeader),
    bodyLimitBytes: read.integer('MAX_BODY_BYTES', 16 * 1024, 1024, 1024 * 1024, 'largest accepted request body, default 16384'),
    retry: { minDelayMs: retryMin * 1000, maxDelayMs: retryMax * 1000 },
    timeZone: read.timeZone('NOTIFY_TIME_ZONE', 'America/Toronto'),
  }
}

/** Parses the Node server's environment. */
export function parseNodeEnv(env: Env): EnvResult<NodeServerConfig> {
  const read = new Reader(env)
  const smtpUrl = read.url('SMTP_URL', ['smtp:', 'smtps:'], 'smtp://user:password@host:587 or smtps://user:password@host:465')
  const from = read.from(
    'MAIL_FROM',
    smtpUrl ? 'SMTP_URL is set, so say which address notifications come from, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>".' : undefined,
  )
  // The browser falls back to the same local key, and a shared .env may set VITE_SUPABASE_ANON_KEY for both.
  const keys = read.keys(['ANON_KEY'])
  const viteKey = read.raw('VITE_SUPABASE_ANON_KEY')
  const anonKeys = keys.length > 0 ? keys : [viteKey ?? localAnonKey]
  const config: NodeServerConfig = {
    ...common(read, anonKeys),
    port: read.integer('PORT', 3000, 0, 65_535, 'the port to listen on, default 3000'),
    host: read.raw('HOST') ?? '0.0.0.0',
    dataDir: read.raw('DATA_DIR') ?? '.data',
    distDir: read.raw('DIST_DIR') ?? 'dist',
    mail: smtpUrl ? { kind: 'smtp', url: smtpUrl, from } : { kind: 'eml', from: from || undefined },
  }
  return read.problems.length > 0 ? { ok: false, problems: read.problems } : { ok: true, config }
}

function publishableKeys(read: Reader): string[] {
  const raw = read.raw('SUPABASE_PUBLISHABLE_KEYS')
  if (raw === undefined) return []
  try {
    const parsed = JSON.parse(raw) as unknown
    if (typeof parsed !== 'object' || parsed === null) throw new Error('not an object')
    return Object.values(parsed).filter((v): v is string => typeof v === 'string' && v !== '')
  } catch {
    read.problems.push('SUPABASE_PUBLISHABLE_KEYS is not a JSON object of keys, e.g. {"default":"sb_publishable_…"}.')
    return []
  }
}

/** Parses the Edge Function's environment (Supabase provides SUPABASE_DB_URL and the public keys itself). */
export function parseEdgeEnv(env: Env): EnvResult<EdgeConfig> {
  const read = new Reader(env)
  const databaseUrl = read.required('SUPABASE_DB_URL', 'Supabase sets it for deployed functions; elsewhere give a postgres:// URL.')
  if (databaseUrl) read.url('SUPABASE_DB_URL', ['postgres:', 'postgresql:'], 'postgresql://user:password@host:5432/postgres')
  const apiKey = read.required('RESEND_API_KEY', 'notifications are sent through Resend: `supabase secrets set RESEND_API_KEY=re_…`.')
  const from = read.from('MAIL_FROM', 'the address notifications come from, on a domain verified in Resend, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>".')
  const baseUrl = read.url('RESEND_API_URL', ['https:', 'http:'], 'https://api.resend.com') ?? 'https://api.resend.com'
  const outboxSecret = read.required('OUTBOX_SECRET', 'the scheduled retry of pending mail authenticates with it: set a long random string.')
  if (outboxSecret && outboxSecret.length < 16) read.problems.push('OUTBOX_SECRET is too short: use at least 16 random characters.')
  const anonKeys = read.keys(['ANON_KEY', 'SUPABASE_ANON_KEY'], publishableKeys(read))
  if (anonKeys.length === 0) read.problems.push('No anon key: set ANON_KEY (Supabase normally provides SUPABASE_ANON_KEY / SUPABASE_PUBLISHABLE_KEYS).')
  // Behind Supabase's gateway every request comes from the gateway: the visitor is the first X-Forwarded-For entry.
  const shared = common(read, anonKeys, 'x-forwarded-for')
  if (shared.allowedOrigins.length === 0) {
    read.problems.push('ALLOWED_ORIGINS is missing: the site is served from another origin, so list it, e.g. ALLOWED_ORIGINS=https://www.example.com.')
  }
  const port = read.raw('PORT')
  const config: EdgeConfig = {
    ...shared,
    databaseUrl,
    resend: { apiKey, from, baseUrl },
    outboxSecret,
    listen: port === undefined ? undefined : { port: read.integer('PORT', 8000, 0, 65_535, 'where to listen outside Supabase'), host: read.raw('HOST') ?? '127.0.0.1' },
  }
  return read.problems.length > 0 ? { ok: false, problems: read.problems } : { ok: true, config }
}

/** The message to print when the environment is not usable. */
export function formatEnvProblems(problems: string[]): string {
  return [
    `The server cannot start: ${problems.length === 1 ? 'one setting needs' : `${problems.length} settings need`} fixing (see .env.example):`,
    ...problems.map((p) => `  - ${p}`),
  ].join('\n')
}
