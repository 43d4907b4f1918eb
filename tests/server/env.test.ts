import { describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import {
  environmentVariables,
  formatEnvProblems,
  parseEdgeEnv,
  parseNodeEnv,
  readBuildSettings,
  readExportSettings,
  readErasureSettings,
  SettingsError,
} from '../../src/server/env.ts'
import { isEmailAddress } from '../../schema/registration-ajv.ts'
import { localAnonKey } from '../../schema/local-defaults.ts'

describe('parseNodeEnv', () => {
  it('starts with defaults from an empty environment: port 3000, .eml outbox, the local anon key', () => {
    const result = parseNodeEnv({})
    expect(result).toEqual({
      ok: true,
      config: {
        port: 3000,
        host: '0.0.0.0',
        pageConfig: 'page.config.json',
        dataDir: '.data',
        supabaseUrl: undefined,
        distDir: 'dist',
        mail: { kind: 'eml', from: undefined },
        notifyEmail: undefined,
        anonKeys: [localAnonKey],
        allowedOrigins: [],
        rateLimitPerMinute: 5,
        trustProxy: 0,
        proxies: { hops: 0, ranges: ['loopback'] },
        exposedWarning: undefined,
        bodyLimitBytes: 16384,
        retry: { minDelayMs: 30_000, maxDelayMs: 3_600_000, maxAttempts: 10 },
        timeZone: 'America/Toronto',
        webhook: undefined,
        webhookDelaysMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        sending: { ratePerSecond: undefined, concurrency: 8 },
        mailWorkers: undefined,
        unsubscribeSecret: undefined,
        publicFunctionUrl: undefined,
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
      PUBLIC_URL: 'https://www.example.com/',
      STUDIO_HOST: 'Studio.example.com',
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
      mail: {
        kind: 'smtp',
        url: 'smtps://user:pa%40ss@smtp.example.com:465',
        from: 'Maple Hollow <no-reply@example.com>',
      },
      notifyEmail: 'sales@example.com',
      anonKeys: ['k1', 'k2'],
      allowedOrigins: ['https://www.example.com', 'https://example.com'],
      rateLimitPerMinute: 0,
      trustProxy: 1,
      bodyLimitBytes: 8192,
      retry: { minDelayMs: 1500, maxDelayMs: 60_000, maxAttempts: 10 },
      timeZone: 'America/Vancouver',
      publicUrl: 'https://www.example.com',
      studioHost: 'studio.example.com',
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
      PUBLIC_URL: 'https://www.example.com',
      TRUST_PROXY: 'maybe',
      MAX_BODY_BYTES: '10',
      MAIL_RETRY_MIN_SECONDS: '100',
      MAIL_RETRY_MAX_SECONDS: '10',
      NOTIFY_TIME_ZONE: 'Mars/Olympus',
      ALLOWED_ORIGINS: 'example.com',
    })
    expect(result.ok).toBe(false)
    if (result.ok) return
    // In the order the variables are described, then the rules that tie two together.
    expect(result.problems).toEqual([
      'PORT is "70000": use a whole number from 0 to 65535 (default 3000).',
      'SMTP_URL is not a valid address: use smtp://user:password@host:587 or smtps://user:password@host:465.',
      'MAIL_FROM is "not an address": write an address, or a name and an address, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>".',
      'NOTIFY_TIME_ZONE is "Mars/Olympus", which is not a time zone: use an IANA name such as America/Toronto (default America/Toronto).',
      'ALLOWED_ORIGINS has "example.com": list origins only (scheme://host[:port], no path), comma-separated, or *.',
      'TRUST_PROXY is "maybe": use true (one proxy in front), false, or the number of proxies in front, up to 10 (default false).',
      'MAX_BODY_BYTES is "10": use a whole number from 1024 to 1048576 (default 16384).',
      'MAIL_RETRY_MIN_SECONDS (100) is larger than MAIL_RETRY_MAX_SECONDS (10).',
    ])
    expect(formatEnvProblems(result.problems).split('\n')[0]).toBe(
      'The server cannot start: 8 settings need fixing (see .env.example):',
    )
  })
})

describe('LEADS_PASSWORD', () => {
  it('turns the leads page on with a long enough password, and refuses a short one without printing it', () => {
    const on = parseNodeEnv({ LEADS_PASSWORD: 'maple fern 2026' })
    expect(on.ok && on.config.leadsPassword).toBe('maple fern 2026')
    const off = parseNodeEnv({})
    expect(off.ok && off.config.leadsPassword).toBeUndefined()
    const short = parseNodeEnv({ LEADS_PASSWORD: 'hunter2' })
    expect(!short.ok && short.problems).toEqual([
      'LEADS_PASSWORD is not long enough: use at least 12 characters (a few unrelated words make a good one), or unset it and give each salesperson a studio account (npm run studio:invite -- --email … --role sales).',
    ])
    expect(JSON.stringify(short)).not.toContain('hunter2')
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
    // CF-Connecting-IP only on Supabase's hosted platform, which sets SB_REGION (issue 21, item 11).
    expect(result.ok && result.config.clientIpHeader).toBeUndefined()
    const hosted = parseEdgeEnv({ ...complete, SB_REGION: 'ca-central-1' })
    expect(hosted.ok && hosted.config.clientIpHeader).toBe('cf-connecting-ip')
    const none = parseEdgeEnv({ ...complete, SB_REGION: 'ca-central-1', CLIENT_IP_HEADER: 'none' })
    expect(none.ok && none.config.clientIpHeader).toBeUndefined()
  })

  it("connects with DATABASE_URL (the lead_writer role) rather than the owner's SUPABASE_DB_URL when it is set", () => {
    const writer = 'postgresql://lead_writer:pw@db.example.supabase.co:5432/postgres'
    const result = parseEdgeEnv({ ...complete, DATABASE_URL: writer })
    expect(result.ok && result.config.databaseUrl).toBe(writer)
    const owner = parseEdgeEnv(complete)
    expect(owner.ok && owner.config.databaseUrl).toBe(complete.SUPABASE_DB_URL)
    const wrong = parseEdgeEnv({ ...complete, DATABASE_URL: 'mysql://x' })
    expect(wrong.ok ? [] : wrong.problems).toEqual([
      'DATABASE_URL is not a valid address: write postgresql://lead_writer:password@host:5432/postgres.',
    ])
  })

  it('reads SUPPRESSION_SECRET, the key shared with npm run leads:erase, and refuses a short one by name', () => {
    const secret = 'a-suppression-key-of-32-characters'
    const result = parseEdgeEnv({ ...complete, SUPPRESSION_SECRET: secret })
    expect(result.ok && result.config.suppressionSecret).toBe(secret)
    const unset = parseEdgeEnv(complete)
    expect(unset.ok && unset.config.suppressionSecret).toBeUndefined()
    expect(() => readErasureSettings({ SUPPRESSION_SECRET: 'short' })).toThrow(
      /SUPPRESSION_SECRET is not a usable secret: use at least 16 random characters/,
    )
    expect(readErasureSettings({ DATA_DIR: '/srv/leads' })).toEqual({
      dataDir: '/srv/leads',
      databaseUrl: undefined,
      suppressionSecret: undefined,
    })
  })

  it('refuses to start without the database, Resend, the sender and the outbox secret (each launch brings its own origins)', () => {
    const result = parseEdgeEnv({ SUPABASE_PUBLISHABLE_KEYS: 'nope', OUTBOX_SECRET: 'short' })
    expect(result.ok).toBe(false)
    if (result.ok) return
    expect(result.problems).toEqual([
      'SUPABASE_DB_URL is missing: Supabase sets it for deployed functions; elsewhere write postgresql://user:password@host:5432/postgres.',
      'RESEND_API_KEY is missing: notifications are sent through Resend: `supabase secrets set RESEND_API_KEY=re_…`.',
      'MAIL_FROM is missing: the address notifications come from, on a domain verified in Resend, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>".',
      'OUTBOX_SECRET is not a usable secret: use at least 16 random letters and digits, e.g. from `openssl rand -hex 24`.',
      'SUPABASE_PUBLISHABLE_KEYS is "nope", which is not a JSON object of keys: write e.g. {"default":"sb_publishable_…"}.',
      'No anon key: set ANON_KEY (Supabase normally provides SUPABASE_ANON_KEY / SUPABASE_PUBLISHABLE_KEYS).',
    ])
  })
})

describe('the settings schema', () => {
  it('describes every variable, and .env.example and docs/deploy.md name each one', () => {
    const example = readFileSync('.env.example', 'utf8')
    const deploy = readFileSync('docs/deploy.md', 'utf8')
    for (const [name, variable] of Object.entries(environmentVariables)) {
      expect(variable.description.length, name).toBeGreaterThan(10)
      expect(example, name).toMatch(new RegExp(`^#?${name}=`, 'm'))
      const fallback =
        'default' in variable && variable.default !== undefined && String(variable.default) !== ''
          ? `\`${String(variable.default)}\``
          : '–'
      expect(deploy, name).toContain(`| \`${name}\` | ${fallback} |`)
    }
  })

  it('asks for MAIL_FROM and PUBLIC_URL once SMTP_URL is set: mailed links never come from a request', () => {
    const result = parseNodeEnv({ SMTP_URL: 'smtp://mail.example.com:587' })
    expect(!result.ok && result.problems).toEqual([
      'MAIL_FROM is missing: SMTP_URL is set, so write an address, or a name and an address, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>".',
      "PUBLIC_URL is missing: SMTP_URL is set, so mail that leaves this machine carries links (studio invitations and password resets, a lead's link), which must point at the address people open the site at and never at what a request names: write it, e.g. PUBLIC_URL=https://www.example.com.",
    ])
  })

  it("judges NOTIFY_EMAIL and MAIL_FROM by the registration form's e-mail rule", () => {
    for (const address of [
      'sales@example.com',
      'jane@exa mple.com',
      'a@b',
      'first.last+vip@sub.example.ca',
      'x@example',
    ]) {
      const result = parseNodeEnv({ NOTIFY_EMAIL: address, MAIL_FROM: `Sales <${address}>` })
      expect(result.ok, address).toBe(isEmailAddress(address))
    }
    expect(isEmailAddress('jane@exa mple.com')).toBe(false)
  })

  it('refuses an outbox secret a Bearer header cannot carry, without printing it', () => {
    const result = parseEdgeEnv({ OUTBOX_SECRET: 'sixteen or more chars with spaces' })
    expect(!result.ok && result.problems.find((p) => p.startsWith('OUTBOX_SECRET'))).toBe(
      'OUTBOX_SECRET is not a usable secret: use at least 16 random letters and digits, e.g. from `openssl rand -hex 24`.',
    )
    expect(JSON.stringify(result)).not.toContain('with spaces')
  })
})

describe('readBuildSettings', () => {
  it('fills in the defaults from an empty environment', () => {
    expect(readBuildSettings({})).toEqual({
      pageConfig: 'page.config.json',
      distDir: 'dist',
      supabaseUrl: undefined,
      anonKey: localAnonKey,
      timeZone: 'America/Toronto',
    })
  })

  it('reads what the build needs', () => {
    const env = {
      PAGE_CONFIG: 'launches/a/page.config.json',
      DIST_DIR: 'dist-a',
      VITE_SUPABASE_URL: 'https://abc.supabase.co',
      VITE_SUPABASE_ANON_KEY: 'sb_publishable_x',
    }
    expect(readBuildSettings(env)).toEqual({
      pageConfig: 'launches/a/page.config.json',
      distDir: 'dist-a',
      supabaseUrl: 'https://abc.supabase.co',
      anonKey: 'sb_publishable_x',
      timeZone: 'America/Toronto',
    })
  })

  it('says plainly when VITE_SUPABASE_URL is not a URL, for the build and the server alike', () => {
    const problem = 'VITE_SUPABASE_URL is "abc.supabase.co", which is not a URL: write https://<project>.supabase.co.'
    expect(() => readBuildSettings({ VITE_SUPABASE_URL: 'abc.supabase.co' })).toThrow(SettingsError)
    expect(() => readBuildSettings({ VITE_SUPABASE_URL: 'abc.supabase.co' })).toThrow(
      `The site cannot be built: one setting needs fixing (see .env.example):\n  - ${problem}`,
    )
    const server = parseNodeEnv({ VITE_SUPABASE_URL: 'abc.supabase.co' })
    expect(!server.ok && server.problems).toEqual([problem])
  })
})

describe('readExportSettings', () => {
  it('reads DATA_DIR and PAGE_CONFIG with their defaults', () => {
    expect(readExportSettings({})).toEqual({ pageConfig: 'page.config.json', dataDir: '.data' })
    expect(readExportSettings({ DATA_DIR: ' /srv/leads ' })).toEqual({
      pageConfig: 'page.config.json',
      dataDir: '/srv/leads',
    })
  })
})
