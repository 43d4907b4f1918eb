import { describe, expect, it } from 'vitest'
import { formatEnvProblems, parseEdgeEnv, parseNodeEnv } from '../../src/server/env.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'

describe('parseNodeEnv', () => {
  it('starts with defaults from an empty environment: port 3000, .eml outbox, the local anon key', () => {
    const result = parseNodeEnv({})
    expect(result).toEqual({
      ok: true,
      config: {
        port: 3000,
        host: '0.0.0.0',
        dataDir: '.data',
        distDir: 'dist',
        mail: { kind: 'eml', from: undefined },
        notifyEmail: undefined,
        anonKeys: [localAnonKey],
        allowedOrigins: [],
        rateLimitPerMinute: 5,
        trustProxy: 0,
        clientIpHeader: undefined,
        bodyLimitBytes: 16384,
        retry: { minDelayMs: 30_000, maxDelayMs: 3_600_000 },
        timeZone: 'America/Toronto',
      },
    })
  })

  it('reads every setting', () => {
    const result = parseNodeEnv({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATA_DIR: '/var/lib/vip',
      DIST_DIR: 'build',
      SMTP_URL: 'smtps://user:pa%40ss@smtp.example.com:465',
      MAIL_FROM: 'Maple Hollow <no-reply@example.com>',
      NOTIFY_EMAIL: 'sales@example.com',
      ANON_KEY: 'k1, k2',
      ALLOWED_ORIGINS: 'https://www.example.com, https://example.com/',
      RATE_LIMIT_PER_MINUTE: '0',
      TRUST_PROXY: 'true',
      MAX_BODY_BYTES: '8192',
      MAIL_RETRY_MIN_SECONDS: '1.5',
      MAIL_RETRY_MAX_SECONDS: '60',
      NOTIFY_TIME_ZONE: 'America/Vancouver',
    })
    expect(result.ok && result.config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      mail: { kind: 'smtp', url: 'smtps://user:pa%40ss@smtp.example.com:465', from: 'Maple Hollow <no-reply@example.com>' },
      notifyEmail: 'sales@example.com',
      anonKeys: ['k1', 'k2'],
      allowedOrigins: ['https://www.example.com', 'https://example.com'],
      rateLimitPerMinute: 0,
      trustProxy: 1,
      bodyLimitBytes: 8192,
      retry: { minDelayMs: 1500, maxDelayMs: 60_000 },
      timeZone: 'America/Vancouver',
    })
  })

  it('uses the build key VITE_SUPABASE_ANON_KEY when ANON_KEY is not set', () => {
    const result = parseNodeEnv({ VITE_SUPABASE_ANON_KEY: 'from-build' })
    expect(result.ok && result.config.anonKeys).toEqual(['from-build'])
  })

  it('lists every problem at once, in plain words', () => {
    const result = parseNodeEnv({
      PORT: '70000',
      SMTP_URL: 'mail.example.com',
      MAIL_FROM: 'not an address',
      TRUST_PROXY: 'maybe',
      MAX_BODY_BYTES: '10',
      MAIL_RETRY_MIN_SECONDS: '100',
      MAIL_RETRY_MAX_SECONDS: '10',
      NOTIFY_TIME_ZONE: 'Mars/Olympus',
      ALLOWED_ORIGINS: 'example.com',
    })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.problems).toEqual([
      'SMTP_URL is not a valid address: use smtp://user:password@host:587 or smtps://user:password@host:465.',
      'MAIL_FROM is "not an address": write an address, or a name and an address, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>".',
      'MAIL_RETRY_MIN_SECONDS (100) is larger than MAIL_RETRY_MAX_SECONDS (10).',
      'ALLOWED_ORIGINS has "example.com": list origins only (scheme://host[:port], no path), comma-separated, or *.',
      'TRUST_PROXY is "maybe": use true (one proxy in front), false, or the number of proxies in front (up to 10).',
      'MAX_BODY_BYTES is "10": use a whole number from 1024 to 1048576 (largest accepted request body, default 16384).',
      'NOTIFY_TIME_ZONE is "Mars/Olympus", which is not a time zone: use an IANA name such as America/Toronto.',
      'PORT is "70000": use a whole number from 0 to 65535 (the port to listen on, default 3000).',
    ])
    expect(formatEnvProblems(result.problems).split('\n')[0]).toBe('The server cannot start: 8 settings need fixing (see .env.example):')
  })
})

describe('parseEdgeEnv', () => {
  const complete = {
    SUPABASE_DB_URL: 'postgresql://postgres:pw@db.example.supabase.co:5432/postgres',
    SUPABASE_ANON_KEY: 'eyJ-legacy',
    SUPABASE_PUBLISHABLE_KEYS: '{"default":"sb_publishable_abc","web":"sb_publishable_def"}',
    RESEND_API_KEY: 're_123',
    MAIL_FROM: 'no-reply@example.com',
    OUTBOX_SECRET: 'a-long-random-secret-value',
    ALLOWED_ORIGINS: 'https://www.example.com',
  }

  it('accepts the keys Supabase provides, legacy and publishable', () => {
    const result = parseEdgeEnv(complete)
    expect(result.ok && result.config.anonKeys).toEqual(['eyJ-legacy', 'sb_publishable_abc', 'sb_publishable_def'])
    expect(result.ok && result.config.listen).toBeUndefined()
    expect(result.ok && result.config.resend.baseUrl).toBe('https://api.resend.com')
    expect(result.ok && result.config.clientIpHeader).toBe('x-forwarded-for')
    const none = parseEdgeEnv({ ...complete, CLIENT_IP_HEADER: 'none' })
    expect(none.ok && none.config.clientIpHeader).toBeUndefined()
  })

  it('refuses to start without the database, Resend, the sender, the outbox secret and the site origin', () => {
    const result = parseEdgeEnv({ SUPABASE_PUBLISHABLE_KEYS: 'nope', OUTBOX_SECRET: 'short' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.problems).toEqual([
      'SUPABASE_DB_URL is missing: Supabase sets it for deployed functions; elsewhere give a postgres:// URL.',
      'RESEND_API_KEY is missing: notifications are sent through Resend: `supabase secrets set RESEND_API_KEY=re_…`.',
      'MAIL_FROM is missing: the address notifications come from, on a domain verified in Resend, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>".',
      'OUTBOX_SECRET is too short: use at least 16 random characters.',
      'SUPABASE_PUBLISHABLE_KEYS is not a JSON object of keys, e.g. {"default":"sb_publishable_…"}.',
      'No anon key: set ANON_KEY (Supabase normally provides SUPABASE_ANON_KEY / SUPABASE_PUBLISHABLE_KEYS).',
      'ALLOWED_ORIGINS is missing: the site is served from another origin, so list it, e.g. ALLOWED_ORIGINS=https://www.example.com.',
    ])
  })
})
