import { deliverySettings, webhookDependencies } from './delivery/settings.ts'
import { leadsPageSettings } from './leads-page/settings.ts'
import { registrationSettings } from './registration/settings.ts'
import { publicAddressSettings } from './settings/public-address.ts'
import { check, type Env, type EnvResult, type Reading, type Values } from './settings/read-settings.ts'
import { siteSettings } from './site/settings.ts'
import { storeSettings } from './store/settings.ts'
import type { MailSending, RetryPolicy } from './delivery/outbox.ts'

/**
 * What each entry reads: the site's commands, the Node server and the Edge Function. The variables themselves are
 * described in the room each sets (site/, store/, registration/, delivery/, leads-page/ settings.ts) and checked by
 * settings/read-settings.ts; here each entry names the ones it reads, once, and gets either complete settings or
 * every problem in plain words. Pure functions, web-standard APIs only: the entries pass `process.env` or
 * `Deno.env.toObject()`.
 */

/** Every environment variable, from every room's block: the one place settings are described. */
export const environmentVariables = {
  ...siteSettings,
  ...storeSettings,
  ...leadsPageSettings,
  ...registrationSettings,
  ...deliverySettings,
  ...publicAddressSettings,
}

type Name = keyof typeof environmentVariables

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
  /** How fast the outbox sends: MAIL_RATE_PER_SECOND (undefined: no cap) and MAIL_CONCURRENCY. */
  sending: MailSending
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
  /** DATABASE_URL: everything in this PostgreSQL instead of DATA_DIR's SQLite (several servers may share it). */
  databaseUrl: string | undefined
  /** SUPPRESSION_SECRET: the suppression list's key with DATABASE_URL (SQLite keeps DATA_DIR/suppression.key). */
  suppressionSecret: string | undefined
  distDir: string
  /** PUBLISH_COMMAND: run after each publish with PUBLISH_SLUG and PUBLISH_DIR (site/static-host.ts). */
  publishCommand: string | undefined
  /** VITE_SUPABASE_URL, when the page posts to a hosted project: the CSP allows it. */
  supabaseUrl: string | undefined
  /** SMTP when SMTP_URL is set; otherwise .eml files in DATA_DIR/outbox (`from` undefined: the entry picks one). */
  mail: { kind: 'smtp'; url: string; from: string } | { kind: 'eml'; from: string | undefined }
  /** MAIL_WORKERS: outbox workers in the delivery process, each on a thread of its own (undefined: its default). */
  mailWorkers: number | undefined
  /** RETENTION_DAYS: leads older than this are erased at start and daily; undefined keeps them. */
  retentionDays: number | undefined
  /** The sales team's shared password for the leads page at /leads; without it only studio accounts sign in there. */
  leadsPassword: string | undefined
  /** ALERT_EMAIL: who is told when a launch breaks or a message fails for good; undefined: the log only. */
  alertEmail: string | undefined
  /** PUBLIC_URL's origin: where every mailed link points (required with SMTP_URL); undefined: http://localhost:PORT. */
  publicUrl: string | undefined
  /**
   * STUDIO_HOST: the one host the studio and the leads page answer on; undefined: PUBLIC_URL's, launches', localhost.
   */
  studioHost: string | undefined
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
  /** PUBLISHED_REFRESH_SECONDS in milliseconds: how long a reading of the published launches is trusted. */
  publishedRefreshMs: number
  /** Only for running the function outside Supabase (tests, `deno run`): where Deno.serve listens. */
  listen: { port: number; host: string } | undefined
}

/**
 * What the site's build reads (src/cli/build.ts, vite.config.ts). Paths are as given, relative to the working folder.
 */
export type BuildSettings = {
  pageConfig: string
  distDir: string
  /** Where the page sends registrations; undefined: the site's own origin. */
  supabaseUrl: string | undefined
  anonKey: string
  /**
   * NOTIFY_TIME_ZONE: where a launch without launch.timeZone has its phases' start times (the built home page is the
   * phase of the build's moment).
   */
  timeZone: string
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
  'MAIL_RATE_PER_SECOND',
  'MAIL_CONCURRENCY',
  'WEBHOOK_URL',
  'WEBHOOK_SECRET',
  'WEBHOOK_RETRY_SECONDS',
  'UNSUBSCRIBE_SECRET',
  'PUBLIC_FUNCTION_URL',
] as const satisfies readonly Name[]

const nodeReading: Reading<Name> = {
  names: [
    'PORT',
    'HOST',
    'TRUSTED_PROXIES',
    'PAGE_CONFIG',
    'DATA_DIR',
    'DATABASE_URL',
    'SUPPRESSION_SECRET',
    'RETENTION_DAYS',
    'DIST_DIR',
    'PUBLISH_COMMAND',
    'VITE_SUPABASE_URL',
    'VITE_SUPABASE_ANON_KEY',
    'ANON_KEY',
    'SMTP_URL',
    'MAIL_FROM',
    'LEADS_PASSWORD',
    'ALERT_EMAIL',
    'PUBLIC_URL',
    'STUDIO_HOST',
    'MAIL_WORKERS',
    ...commonNames,
  ],
  // On PostgreSQL the suppression list's key stays outside the database, the same on every server and for leads:erase.
  // Mail that leaves the machine carries links: they are built from PUBLIC_URL, never from a request's Host header.
  dependencies: {
    SMTP_URL: ['MAIL_FROM', 'PUBLIC_URL'],
    DATABASE_URL: ['SUPPRESSION_SECRET'],
    ...webhookDependencies,
  },
  changes: {
    SUPPRESSION_SECRET: {
      fix: 'with PostgreSQL the suppression list needs a key kept outside the database: set SUPPRESSION_SECRET to the same value on every server (and for npm run leads:erase), at least 16 random characters, e.g. from `openssl rand -hex 32`',
    },
  },
}

const edgeReading: Reading<Name> = {
  names: [
    'DATABASE_URL',
    'SUPABASE_DB_URL',
    'SUPABASE_URL',
    'RESEND_API_KEY',
    'RESEND_API_URL',
    'MAIL_FROM',
    'OUTBOX_SECRET',
    'ANON_KEY',
    'SUPABASE_ANON_KEY',
    'SUPABASE_PUBLISHABLE_KEYS',
    'CLIENT_IP_HEADER',
    'SUPPRESSION_SECRET',
    'PUBLISHED_REFRESH_SECONDS',
    ...commonNames,
    'PORT',
    'HOST',
  ],
  required: ['SUPABASE_DB_URL', 'RESEND_API_KEY', 'MAIL_FROM', 'OUTBOX_SECRET'],
  dependencies: webhookDependencies,
  changes: {
    MAIL_FROM: {
      fix: 'the address notifications come from, on a domain verified in Resend, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>"',
    },
    // Deno.serve listens only outside Supabase, and only when PORT is set.
    PORT: { default: undefined },
    HOST: { default: '127.0.0.1' },
  },
}

const buildReading: Reading<Name> = {
  names: ['PAGE_CONFIG', 'DIST_DIR', 'VITE_SUPABASE_URL', 'VITE_SUPABASE_ANON_KEY', 'NOTIFY_TIME_ZONE'],
}
const exportReading: Reading<Name> = { names: ['PAGE_CONFIG', 'DATA_DIR'] }
const erasureReading: Reading<Name> = { names: ['DATA_DIR', 'DATABASE_URL', 'SUPPRESSION_SECRET'] }

function commonOf(
  values: Values<typeof environmentVariables, Name>,
  anonKeys: string[],
  problems: string[],
): CommonConfig {
  const retryMin = values.MAIL_RETRY_MIN_SECONDS!
  const retryMax = values.MAIL_RETRY_MAX_SECONDS!
  if (retryMin > retryMax)
    problems.push(`MAIL_RETRY_MIN_SECONDS (${retryMin}) is larger than MAIL_RETRY_MAX_SECONDS (${retryMax}).`)
  return {
    notifyEmail: values.NOTIFY_EMAIL,
    anonKeys: [...new Set(anonKeys)],
    allowedOrigins: (values.ALLOWED_ORIGINS ?? []).map((o) => (o === '*' ? o : o.replace(/\/$/, ''))),
    rateLimitPerMinute: values.RATE_LIMIT_PER_MINUTE!,
    trustProxy: Number(values.TRUST_PROXY ?? 0),
    bodyLimitBytes: values.MAX_BODY_BYTES!,
    retry: { minDelayMs: retryMin * 1000, maxDelayMs: retryMax * 1000, maxAttempts: values.MAIL_MAX_ATTEMPTS! },
    timeZone: values.NOTIFY_TIME_ZONE!,
    webhook:
      values.WEBHOOK_URL && values.WEBHOOK_SECRET
        ? { url: values.WEBHOOK_URL, secret: values.WEBHOOK_SECRET }
        : undefined,
    webhookDelaysMs: values.WEBHOOK_RETRY_SECONDS!.map((s) => Math.round(Number(s) * 1000)),
    sending: { ratePerSecond: values.MAIL_RATE_PER_SECOND, concurrency: values.MAIL_CONCURRENCY! },
    unsubscribeSecret: values.UNSUBSCRIBE_SECRET,
    publicFunctionUrl: values.PUBLIC_FUNCTION_URL?.replace(/\/+$/, ''),
  }
}

function result<T>(config: T, problems: string[]): EnvResult<T> {
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config }
}

/** Reads the Node server's environment (npm start, src/cli/serve.ts). */
export function parseNodeEnv(env: Env): EnvResult<NodeServerConfig> {
  const { values, problems } = check(env, environmentVariables, nodeReading)
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
      databaseUrl: values.DATABASE_URL,
      suppressionSecret: values.SUPPRESSION_SECRET,
      distDir: values.DIST_DIR!,
      publishCommand: values.PUBLISH_COMMAND?.trim() || undefined,
      supabaseUrl: values.VITE_SUPABASE_URL,
      mail: values.SMTP_URL ? { kind: 'smtp', url: values.SMTP_URL, from: from ?? '' } : { kind: 'eml', from },
      mailWorkers: values.MAIL_WORKERS,
      retentionDays: values.RETENTION_DAYS,
      leadsPassword: values.LEADS_PASSWORD,
      alertEmail: values.ALERT_EMAIL,
      publicUrl: values.PUBLIC_URL && new URL(values.PUBLIC_URL).origin,
      studioHost: values.STUDIO_HOST?.toLowerCase(),
    },
    problems,
  )
}

/**
 * Reads the Edge Function's environment (Supabase provides SUPABASE_DB_URL, SUPABASE_URL and the public keys
 * itself). With `needsLinks` (any launch has a reply) the unsubscribe links need UNSUBSCRIBE_SECRET and an address.
 */
export function parseEdgeEnv(env: Env, options: { needsLinks?: boolean } = {}): EnvResult<EdgeConfig> {
  const { values, problems } = check(env, environmentVariables, edgeReading)
  const anonKeys = [
    ...(values.ANON_KEY ?? []),
    ...(values.SUPABASE_ANON_KEY ?? []),
    ...Object.values(values.SUPABASE_PUBLISHABLE_KEYS ?? {}).filter(Boolean),
  ]
  if (anonKeys.length === 0)
    problems.push(
      'No anon key: set ANON_KEY (Supabase normally provides SUPABASE_ANON_KEY / SUPABASE_PUBLISHABLE_KEYS).',
    )
  const common = commonOf(values, anonKeys, problems)
  if (options.needsLinks) {
    if (!common.unsubscribeSecret && !env.UNSUBSCRIBE_SECRET?.trim()) {
      problems.push(
        "UNSUBSCRIBE_SECRET is missing: a launch's page.config.json has a reply, whose unsubscribe links it signs; use at least 16 random characters.",
      )
    }
    if (!common.publicFunctionUrl && values.SUPABASE_URL)
      common.publicFunctionUrl = `${values.SUPABASE_URL.replace(/\/+$/, '')}/functions/v1/send-contact-email`
    if (!common.publicFunctionUrl)
      problems.push(
        "PUBLIC_FUNCTION_URL is missing: the unsubscribe links need the function's public address (Supabase sets SUPABASE_URL, from which it is made).",
      )
  }
  return result(
    {
      ...common,
      ...clientIpOf(values.CLIENT_IP_HEADER, env.SB_REGION),
      databaseUrl: values.DATABASE_URL ?? values.SUPABASE_DB_URL ?? '',
      resend: { apiKey: values.RESEND_API_KEY ?? '', from: values.MAIL_FROM ?? '', baseUrl: values.RESEND_API_URL! },
      outboxSecret: values.OUTBOX_SECRET ?? '',
      suppressionSecret: values.SUPPRESSION_SECRET,
      publishedRefreshMs: values.PUBLISHED_REFRESH_SECONDS! * 1000,
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
function clientIpOf(
  header: string | undefined,
  region: string | undefined,
): { clientIpHeader: string | undefined; clientIpSource: string } {
  if (header !== undefined) {
    const name = header.toLowerCase()
    return name === 'none'
      ? { clientIpHeader: undefined, clientIpSource: "the connection's address (CLIENT_IP_HEADER=none)" }
      : { clientIpHeader: name, clientIpSource: `the ${name} header (CLIENT_IP_HEADER)` }
  }
  if (region?.trim())
    return {
      clientIpHeader: 'cf-connecting-ip',
      clientIpSource: `the cf-connecting-ip header (Supabase's hosted platform: SB_REGION=${region.trim()})`,
    }
  return {
    clientIpHeader: undefined,
    clientIpSource:
      "the connection's address (not Supabase's hosted platform: no SB_REGION; CF-Connecting-IP is not trusted)",
  }
}

/** Settings that cannot be used; the message lists every problem. */
export class SettingsError extends Error {
  override name = 'SettingsError'
  constructor(
    readonly problems: string[],
    who: string,
  ) {
    super(formatEnvProblems(problems, who))
  }
}

/** What the build reads, defaults filled in; throws SettingsError (e.g. a VITE_SUPABASE_URL that is not a URL). */
export function readBuildSettings(env: Env): BuildSettings {
  const { values, problems } = check(env, environmentVariables, buildReading)
  if (problems.length > 0) throw new SettingsError(problems, 'The site cannot be built')
  return {
    pageConfig: values.PAGE_CONFIG!,
    distDir: values.DIST_DIR!,
    supabaseUrl: values.VITE_SUPABASE_URL,
    anonKey: values.VITE_SUPABASE_ANON_KEY!,
    timeZone: values.NOTIFY_TIME_ZONE!,
  }
}

/** What `npm run leads:export` reads: the data folder and the page config (for the column order). */
export function readExportSettings(env: Env): { pageConfig: string; dataDir: string } {
  const { values, problems } = check(env, environmentVariables, exportReading)
  if (problems.length > 0) throw new SettingsError(problems, 'The export cannot start')
  return { pageConfig: values.PAGE_CONFIG!, dataDir: values.DATA_DIR! }
}

/** What `npm run leads:erase` reads: the data folder, or PostgreSQL and the suppression list's key. */
export function readErasureSettings(env: Env): {
  dataDir: string
  databaseUrl: string | undefined
  suppressionSecret: string | undefined
} {
  const { values, problems } = check(env, environmentVariables, erasureReading)
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
