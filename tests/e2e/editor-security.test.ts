import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyProject, freePort, scaled } from './harness.ts'

// The real `npm run edit`, run in a throwaway copy of the project that holds what a working checkout holds beside the
// code: registrations in .data/ (the database's WAL, an e-mail in the outbox) and secrets in .env.
const project = copyProject()
const secret = 'Registrant Jordan Lee, jordan@example.com, 555-555-0199'
let editor: ChildProcess
let port: number
let token: string

beforeAll(async () => {
  mkdirSync(path.join(project.root, '.data/outbox'), { recursive: true })
  writeFileSync(path.join(project.root, '.data/leads.sqlite-wal'), secret)
  writeFileSync(
    path.join(project.root, '.data/outbox/0001-notification.eml'),
    `Subject: New VIP registration\r\n\r\n${secret}\r\n`,
  )
  writeFileSync(path.join(project.root, '.env'), `SMTP_PASS=${secret}\n`)
  port = await freePort()
  editor = spawn(process.execPath, ['--import', 'tsx', 'src/cli/edit.ts'], {
    cwd: project.root,
    env: { ...process.env, EDIT_PORT: String(port), PAGE_CONFIG: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  editor.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  editor.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
  // The first start after a change of the code builds the studio's page (loadPageCode).
  const deadline = Date.now() + 150_000
  while (!output.includes('Open http')) {
    if (editor.exitCode !== null || Date.now() > deadline) throw new Error(`The editor did not start:\n${output}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const page = await send('GET', '/studio/')
  token = /name="editor-token" content="([^"]+)"/.exec(page.body)?.[1] ?? ''
}, scaled(180_000))

afterAll(async () => {
  if (editor?.pid && editor.exitCode === null) {
    const exited = new Promise((resolve) => editor.once('exit', resolve))
    process.kill(editor.pid, 'SIGTERM')
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))])
    if (editor.exitCode === null) process.kill(editor.pid, 'SIGKILL')
  }
  project.remove()
})

/** A raw HTTP request: the path goes out exactly as written (`..` and all), with the editor's own Host unless given. */
function send(
  method: string,
  pathname: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path: pathname, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        let text = ''
        res.on('data', (chunk: Buffer) => (text += chunk.toString()))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

describe('the editor server serves only the editor', () => {
  it('answers 403 or 404, with or without the token, for the project’s data, settings and Vite’s open-in-editor', async () => {
    expect(token.length).toBeGreaterThan(20)
    const probes = [
      '/.data/leads.sqlite-wal',
      '/.data/outbox/0001-notification.eml',
      '/package.json',
      '/package.json?import',
      '/.env',
      '/launches/../.data/leads.sqlite-wal',
      '/launches/%2e%2e/.data/leads.sqlite-wal',
      '/src/../.data/leads.sqlite-wal',
      '/node_modules/../package.json',
      '/src/..%2f.env',
      `/@fs${project.root}/.data/leads.sqlite-wal`,
      `/@fs${project.root}/package.json`,
      '/__open-in-editor?file=package.json',
      '/studio/../.env',
      '/studio/assets/../../.env',
      '/studio/assets/%2e%2e/%2e%2e/package.json',
      '/studio/api/launches/bramblewood-crossing/images/../../../../.env',
      '/studio/api/people',
      '/studio/api/audit',
      '/studio/sign-in',
      '/leads',
      '/src/studio/client/main.tsx',
      '/@vite/client',
    ]
    const answers: string[] = []
    for (const probe of probes) {
      for (const headers of [{}, { 'x-editor-token': token }] as Record<string, string>[]) {
        const answer = await send('GET', probe, headers)
        if (
          ![403, 404].includes(answer.status) ||
          answer.body.includes('Jordan') ||
          answer.body.includes('vip-launch-site')
        ) {
          answers.push(`${probe} ${'x-editor-token' in headers ? 'with' : 'without'} the token: ${answer.status}`)
        }
      }
    }
    expect(answers).toEqual([])
  })

  it('gives no other origin an Access-Control-Allow-Origin, nor the page with its token', async () => {
    const evil = { origin: 'http://evil.localhost' }
    for (const pathname of [
      '/',
      '/studio/',
      '/studio/launches/bramblewood-crossing',
      '/studio/assets/x.js',
      '/studio/api/me',
      '/studio/api/launches/bramblewood-crossing',
    ]) {
      const answer = await send('GET', pathname, { ...evil, 'x-editor-token': token })
      expect(answer.headers['access-control-allow-origin'], pathname).toBeUndefined()
      expect(answer.status, pathname).toBe(403)
      expect(answer.body).not.toContain(token)
    }
    const preflight = await send('OPTIONS', '/studio/api/launches/bramblewood-crossing/publish', {
      ...evil,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'x-editor-token',
    })
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    // A read by a page on another site (fetch, no Origin sent in no-cors mode) gets nothing either.
    const sneaky = await send('GET', '/studio/', {
      'sec-fetch-site': 'same-site',
      'sec-fetch-mode': 'no-cors',
      'sec-fetch-dest': 'empty',
    })
    expect(sneaky.status).toBe(403)
    expect(sneaky.body).not.toContain(token)
    // A page on another port of 127.0.0.1 (same site, another origin) cannot change the file, token or not.
    const before = readFileSync(path.join(project.root, 'page.config.json'), 'utf8')
    const write = await send(
      'POST',
      '/studio/api/launches/bramblewood-crossing/publish',
      { origin: 'http://127.0.0.1:1', 'x-editor-token': token, 'content-type': 'application/json' },
      '{"text":"{}"}',
    )
    expect(write.status).toBe(403)
    expect(readFileSync(path.join(project.root, 'page.config.json'), 'utf8')).toBe(before)
  })

  it('still serves its own page to the person who opens it, and its code', async () => {
    const typed = await send('GET', '/studio/launches/bramblewood-crossing', {
      'sec-fetch-site': 'none',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
    })
    expect(typed.status).toBe(200)
    expect(typed.body).toContain('editor-token')
    const linked = await send('GET', '/', {
      'sec-fetch-site': 'cross-site',
      'sec-fetch-mode': 'navigate',
      'sec-fetch-dest': 'document',
    })
    expect(linked.status).toBe(303)
    const script = /src="(\/studio\/assets\/[^"]+\.js)"/.exec(typed.body)?.[1] ?? ''
    const code = await send('GET', script, {
      'sec-fetch-site': 'same-origin',
      'sec-fetch-mode': 'cors',
      'sec-fetch-dest': 'script',
    })
    expect(code.status).toBe(200)
    const launch = await send('GET', '/studio/api/launches/bramblewood-crossing', {
      'x-editor-token': token,
      'sec-fetch-site': 'same-origin',
    })
    expect(launch.status).toBe(200)
    expect(JSON.parse(launch.body).liveText).toBe(readFileSync(path.join(project.root, 'page.config.json'), 'utf8'))
    expect((await send('GET', '/studio/api/launches/bramblewood-crossing')).status).toBe(403)
  })
})
