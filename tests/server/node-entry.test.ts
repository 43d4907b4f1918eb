import { createHash } from 'node:crypto'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { localAnonKey } from '../../schema/local-defaults.ts'
import { createEmlMailer, emlFileName } from '../../src/server/delivery/mailers/eml-mailer.ts'
import { openSqliteStore } from '../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead, readPageConfig, registration } from './support/fixtures.ts'
import { runServerExpectingExit, startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

const root = mkdtempSync(path.join(tmpdir(), 'vip-node-'))
const distDir = path.join(root, 'dist')
const { asset, assetText } = writeDist(distDir)
afterAll(() => rmSync(root, { recursive: true, force: true }))

function register(url: string, body = registration()) {
  return fetch(`${url}/functions/v1/send-contact-email`, {
    method: 'POST',
    headers: { apikey: localAnonKey, authorization: `Bearer ${localAnonKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The submission ids stored in DATA_DIR, read as the export does (read-only, beside a running server). */
async function storedIds(dataDir: string): Promise<string[]> {
  const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { readonly: true, defaultLaunch })
  try {
    return (await store.listLeads(0, 10_000)).map((l) => l.submissionId)
  } finally {
    await store.close()
  }
}

describe('node entry: refusing to start', () => {
  it('lists every malformed setting in plain words and exits 1', async () => {
    const result = await runServerExpectingExit({
      DATA_DIR: path.join(root, 'never'),
      DIST_DIR: distDir,
      PORT: 'eighty',
      SMTP_URL: 'http://mail.example.com',
      // Set, so that the six malformed settings are the only ones listed (PUBLIC_URL is required with SMTP_URL).
      PUBLIC_URL: 'https://www.example.com',
      RATE_LIMIT_PER_MINUTE: '-1',
      ALLOWED_ORIGINS: 'https://www.example.com/register',
      NOTIFY_EMAIL: 'sales-at-example.com',
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('The server cannot start: 6 settings need fixing')
    expect(result.stderr).toContain('PORT is "eighty": use a whole number from 0 to 65535')
    expect(result.stderr).toContain('SMTP_URL is not a valid address')
    expect(result.stderr).toContain('MAIL_FROM is missing')
    expect(result.stderr).toContain('RATE_LIMIT_PER_MINUTE is "-1"')
    expect(result.stderr).toContain('ALLOWED_ORIGINS has "https://www.example.com/register"')
    expect(result.stderr).toContain('NOTIFY_EMAIL is "sales-at-example.com", which is not an e-mail address')
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(result.stdout).not.toContain('Listening on')
    expect(existsSync(path.join(root, 'never'))).toBe(false)
  })

  it('says to run npm run build when the built site is missing', async () => {
    const result = await runServerExpectingExit({
      DATA_DIR: path.join(root, 'nobuild'),
      DIST_DIR: path.join(root, 'no-dist'),
    })
    expect(result.code).toBe(1)
    const slug = readPageConfig().launch.slug
    expect(result.stderr).toContain(
      `The built site of launch "${slug}" is missing: ${path.join(root, 'no-dist', slug, 'index.html')} does not exist. Run npm run build first`,
    )
  })

  it('says what is wrong with the page config', async () => {
    const broken = path.join(root, 'broken.config.json')
    writeFileSync(broken, '{ "site": ')
    // With no last good build to serve (an empty DIST_DIR): a broken launch that has one keeps serving it (issue 22).
    const result = await runServerExpectingExit({
      DATA_DIR: path.join(root, 'badconfig'),
      DIST_DIR: path.join(root, 'never-built'),
      PAGE_CONFIG: broken,
    })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('The page config cannot be used.')
    expect(result.stderr).toContain(broken)
  })
})

describe('node entry: serving the site and the function', () => {
  const dataDir = path.join(root, 'data')
  let server: ServerProcess

  beforeAll(async () => {
    server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir })
  })
  afterAll(async () => {
    await server?.stop('SIGKILL')
  })

  it('prints one line when ready', () => {
    expect(server.output().match(/Listening on/g)).toHaveLength(1)
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  })

  it('serves index.html at / without long caching', async () => {
    const res = await fetch(`${server.url}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('no-cache')
    expect(await res.text()).toContain('<h1>Bramblewood Crossing</h1>')
  })

  it("sends the security headers, allowing the page's JSON-LD by its hash", async () => {
    const res = await fetch(`${server.url}/`)
    const hash = createHash('sha256').update('{"@type":"RealEstateAgent"}').digest('base64')
    expect(res.headers.get('content-security-policy')).toContain(`script-src 'self' 'sha256-${hash}'`)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('x-frame-options')).toBe('DENY')
    expect(res.headers.get('strict-transport-security')).toBeNull()
  })

  it('answers any unknown path with 404.html and status 404', async () => {
    for (const p of [
      '/nope',
      '/assets/missing.js',
      '/functions/v1/other',
      '/../package.json',
      '/%2e%2e/%2e%2e/package.json',
      '/.env',
      '/src/server/node.ts',
    ]) {
      const res = await fetch(`${server.url}${p}`)
      expect(res.status, p).toBe(404)
      expect(await res.text(), p).toContain('<h1>404</h1>')
    }
  })

  it('does not follow a symlink out of the built site', async () => {
    writeFileSync(path.join(root, 'outside.txt'), 'private data')
    mkdirSync(path.join(root, 'outside-dir'), { recursive: true })
    writeFileSync(path.join(root, 'outside-dir', 'secret.js'), 'private code')
    const siteDir = path.join(distDir, readPageConfig().launch.slug)
    symlinkSync(path.join(root, 'outside.txt'), path.join(siteDir, 'leak.txt'))
    symlinkSync(path.join(root, 'outside-dir'), path.join(siteDir, 'assets', 'linked'))
    symlinkSync('robots.txt', path.join(siteDir, 'robots-copy.txt'))
    for (const p of ['/leak.txt', '/assets/linked/secret.js']) {
      const res = await fetch(`${server.url}${p}`)
      expect(res.status, p).toBe(404)
      expect(await res.text(), p).not.toContain('private')
    }
    // A link that stays inside the site is served.
    const inside = await fetch(`${server.url}/robots-copy.txt`)
    expect(inside.status).toBe(200)
    expect(await inside.text()).toContain('User-agent')
  })

  it('caches hashed assets for a year and serves the precompressed file the client accepts', async () => {
    const plain = await fetch(`${server.url}${asset}`, { headers: { 'accept-encoding': 'identity' } })
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(plain.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(plain.headers.get('content-encoding')).toBeNull()
    expect(await plain.text()).toBe(assetText)

    // Read the raw bytes: fetch would decode them itself.
    const { request } = await import('node:http')
    const raw = (encoding: string) =>
      new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
        request(`${server.url}${asset}`, { headers: { 'accept-encoding': encoding } }, (res) => {
          const chunks: Buffer[] = []
          res.on('data', (c: Buffer) => chunks.push(c))
          res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
        })
          .on('error', reject)
          .end()
      })
    const br = await raw('gzip, deflate, br')
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.headers.vary).toBe('Accept-Encoding')
    expect(brotliDecompressSync(br.body).toString()).toBe(assetText)
    const gz = await raw('gzip')
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gz.body).toString()).toBe(assetText)
    const refused = await raw('br;q=0, gzip;q=0')
    expect(refused.headers['content-encoding']).toBeUndefined()
  })

  it('answers a matching If-None-Match with 304, and HEAD without a body', async () => {
    const first = await fetch(`${server.url}/robots.txt`)
    const etag = first.headers.get('etag')!
    expect(etag).toBeTruthy()
    expect((await fetch(`${server.url}/robots.txt`, { headers: { 'if-none-match': etag } })).status).toBe(304)
    const head = await fetch(`${server.url}/`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe('')
  })

  it('stores a registration and writes its notification to DATA_DIR/outbox', async () => {
    const body = registration()
    const res = await register(server.url, body)
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true })
    expect(await storedIds(dataDir)).toContain(body.submissionId)
    const outbox = path.join(dataDir, 'outbox')
    // The lead's files (its notification and its reply, written side by side in either order).
    const files = () =>
      existsSync(outbox)
        ? readdirSync(outbox)
            .filter((f) => f.includes(String(body.submissionId)) && f.endsWith('.eml'))
            .map((f) => readFileSync(path.join(outbox, f), 'utf8'))
        : []
    const subject = 'Subject: New registration for Bramblewood Crossing: Jane Doe'
    await until(() => files().some((text) => text.includes(subject)))
    expect(files().filter((text) => text.includes(subject))).toHaveLength(1)
  })

  it('refuses a second server on the same DATA_DIR, and the first keeps answering', async () => {
    const second = await runServerExpectingExit({ DATA_DIR: dataDir, DIST_DIR: distDir })
    expect(second.code).toBe(1)
    expect(second.stderr).toContain(`Another server is already using DATA_DIR ${dataDir} (process ${server.proc.pid})`)
    expect((await fetch(`${server.url}/`)).status).toBe(200)
  })
})

/** The permission bits of a path, as an octal string ("600"). */
const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8)

describe('node entry: files only the server can read', () => {
  it('creates DATA_DIR, the database files and the .eml outbox owner-only, even under umask 000', async () => {
    const dataDir = path.join(root, 'private', 'data')
    const server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir }, 30_000, { umask: 0 })
    try {
      const body = registration()
      expect((await register(server.url, body)).status).toBe(200)
      const outbox = path.join(dataDir, 'outbox')
      // The team's notification and the registrant's reply (page.config.json has a reply), both written in full.
      await until(
        () =>
          existsSync(outbox) &&
          readdirSync(outbox).filter((f) => f.endsWith('.eml')).length === 2 &&
          !readdirSync(outbox).some((f) => f.endsWith('.tmp')),
      )
      expect(modeOf(dataDir)).toBe('700')
      expect(modeOf(outbox)).toBe('700')
      const files = [
        'leads.sqlite',
        'leads.sqlite-wal',
        'leads.sqlite-shm',
        'server.lock',
        'server.pid',
        'delivery.lock',
        'unsubscribe.key',
        ...readdirSync(outbox).map((f) => path.join('outbox', f)),
      ]
      expect(files.filter((f) => f.endsWith('.eml'))).toHaveLength(2)
      for (const file of files) expect(modeOf(path.join(dataDir, file)), file).toBe('600')
    } finally {
      await server.stop('SIGTERM')
    }
  })

  it('makes an existing, readable data folder owner-only at start', async () => {
    const dataDir = path.join(root, 'loose')
    mkdirSync(path.join(dataDir, 'outbox'), { recursive: true })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    await store.close()
    writeFileSync(path.join(dataDir, 'outbox', 'old.eml'), 'Subject: old\r\n\r\nold')
    for (const dir of [dataDir, path.join(dataDir, 'outbox')]) chmodSync(dir, 0o755)
    for (const file of ['leads.sqlite', path.join('outbox', 'old.eml')]) chmodSync(path.join(dataDir, file), 0o644)

    const server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir })
    try {
      expect(modeOf(dataDir)).toBe('700')
      expect(modeOf(path.join(dataDir, 'outbox'))).toBe('700')
      expect(modeOf(path.join(dataDir, 'leads.sqlite'))).toBe('600')
      expect(modeOf(path.join(dataDir, 'outbox', 'old.eml'))).toBe('600')
    } finally {
      await server.stop('SIGTERM')
    }
  })
})

describe('node entry: retention period', () => {
  it('erases registrations older than RETENTION_DAYS at start, with their notifications and .eml files', async () => {
    const dataDir = path.join(root, 'retention')
    mkdirSync(path.join(dataDir, 'outbox'), { recursive: true })
    const store = openSqliteStore(path.join(dataDir, 'leads.sqlite'), { defaultLaunch })
    const day = 86_400_000
    const old = newLead({
      createdAt: new Date(Date.now() - 31 * day).toISOString(),
      fields: { name: 'Olga Old', email: 'old@example.com', phone: '5555550100', isRealtor: 'no' },
    })
    const recent = newLead({ createdAt: new Date(Date.now() - 29 * day).toISOString() })
    for (const lead of [old, recent]) await store.saveLead(lead, mailFor(lead))
    await store.close()
    const mailer = createEmlMailer({ dir: path.join(dataDir, 'outbox'), from: 'no-reply@example.com' })
    for (const lead of [old, recent]) await mailer.send(mailFor(lead))

    const server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir, RETENTION_DAYS: '30' })
    try {
      expect(server.output()).toContain(
        'Retention: erased 1 registration(s) older than 30 days, 1 notification(s) and 1 .eml file(s).',
      )
      expect(await storedIds(dataDir)).toEqual([recent.submissionId])
      // The recent lead's notification is still pending, so the worker may be writing it again (a .tmp, then a rename).
      await vi.waitFor(
        () => expect(readdirSync(path.join(dataDir, 'outbox'))).toEqual([emlFileName(mailFor(recent).messageId)]),
        { timeout: 10_000, interval: 50 },
      )
    } finally {
      await server.stop('SIGTERM')
    }
  })
})

describe('node entry: stopping and starting again', () => {
  it('stops cleanly on SIGTERM and keeps every acknowledged lead', async () => {
    const dataDir = path.join(root, 'restart')
    const first = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir })
    const bodies = Array.from({ length: 3 }, () => registration())
    for (const body of bodies) expect((await register(first.url, body)).status).toBe(200)
    expect(await first.stop('SIGTERM')).toEqual({ code: 0, signal: null })
    expect(first.output()).toContain('Stopped.')
    expect(existsSync(path.join(dataDir, 'server.pid'))).toBe(false)

    const again = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir })
    try {
      expect((await storedIds(dataDir)).sort()).toEqual(bodies.map((b) => String(b.submissionId)).sort())
    } finally {
      await again.stop('SIGTERM')
    }
  })

  it('starts again on the same DATA_DIR after a SIGKILL, with the lead and its notification', async () => {
    const dataDir = path.join(root, 'killed')
    const first = await startServerProcess({
      DATA_DIR: dataDir,
      DIST_DIR: distDir,
      MAIL_RETRY_MIN_SECONDS: '1',
      MAIL_RETRY_MAX_SECONDS: '1',
    })
    const body = registration()
    expect((await register(first.url, body)).status).toBe(200)
    expect((await first.stop('SIGKILL')).signal).toBe('SIGKILL')

    const again = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir })
    try {
      expect(await storedIds(dataDir)).toEqual([body.submissionId])
      const outbox = path.join(dataDir, 'outbox')
      await until(
        () =>
          existsSync(outbox) &&
          readdirSync(outbox).some((f) => f.includes(String(body.submissionId)) && f.endsWith('.eml')),
      )
      expect((await register(again.url, registration())).status).toBe(200)
    } finally {
      await again.stop('SIGTERM')
    }
  })
})
