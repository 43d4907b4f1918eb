import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runStudioInvite } from '../../src/cli/studio-invite.ts'
import { httpClient } from '../studio/support/http-client.ts'
import { startServerProcess, writeDist, type ServerProcess } from './support/node-server.ts'

// Issue 42, item 8, through the real Node server over HTTP: a preview link kept working after its maker was removed
// and always showed the newest draft. Now each is kept on the server, bound to the text it was made from, listed per
// launch, revocable by owners, and ended with its maker's access.

const root = mkdtempSync(path.join(tmpdir(), 'vip-preview-links-'))
const dataDir = path.join(root, '.data')
const distDir = path.join(root, 'dist')
const configFile = path.join(root, 'page.config.json')
const original = readFileSync('page.config.json', 'utf8')
const slug = JSON.parse(original).launch.slug as string
const password = 'correct horse battery staple'
let server: ServerProcess

const client = () =>
  httpClient(
    () => server.url,
    () => server.url,
  )

async function personWith(email: string, role: string): Promise<ReturnType<typeof client>> {
  let printed = ''
  const args = ['--email', email, '--role', role]
  const env = { DATA_DIR: dataDir, PAGE_CONFIG: configFile }
  expect(
    await runStudioInvite(
      args,
      env,
      root,
      (line: string) => void (printed += line),
      () => {},
    ),
  ).toBe(0)
  const person = client()
  const link = new URL(/(http:\/\/\S+\/studio\/invite\/\S+)/.exec(printed)![1]!).pathname
  expect((await person.send(link, { form: { password, confirm: password } })).status).toBe(303)
  return person
}

const withHeading = (heading: string) =>
  original.replace('"heading": "Bramblewood Crossing"', () => `"heading": "${heading}"`)

async function headingsOf(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${server.url}/studio/api/preview/${url.split('/').pop()}`)
  return { status: res.status, text: await res.text() }
}

beforeAll(async () => {
  cpSync('public', path.join(root, 'public'), { recursive: true })
  cpSync('documents', path.join(root, 'documents'), { recursive: true })
  writeFileSync(configFile, original)
  writeDist(distDir)
  mkdirSync(dataDir, { recursive: true })
  server = await startServerProcess({ DATA_DIR: dataDir, DIST_DIR: distDir, PAGE_CONFIG: configFile })
}, 60_000)
afterAll(async () => {
  await server?.stop()
  rmSync(root, { recursive: true, force: true })
})

describe('preview links (issue 42, item 8)', () => {
  it('shows the draft it was made from, is listed, is revocable by an owner, and ends with its maker', async () => {
    expect(withHeading('Draft one')).not.toBe(original)
    const owner = await personWith('owner@example.com', 'owner')
    const editor = await personWith('eddie@example.com', 'editor')
    const draft = (text: string) => editor.send(`/studio/api/launches/${slug}/draft`, { method: 'PUT', json: { text } })
    expect((await draft(withHeading('Draft one'))).status).toBe(200)
    const made = await editor.send(`/studio/api/launches/${slug}/preview-link`, { json: {} })
    expect(made.status).toBe(200)
    const { url } = (await made.json()) as { url: string }
    expect((await draft(withHeading('Draft two'))).status).toBe(200)
    const shown = await headingsOf(url)
    expect(shown.status).toBe(200)
    expect(shown.text).toContain('Draft one')
    expect(shown.text).not.toContain('Draft two')

    const listed = (await (await owner.send(`/studio/api/launches/${slug}/preview-links`)).json()) as Array<{
      id: number
      madeBy: string
    }>
    expect(listed.map((link) => link.madeBy)).toEqual(['eddie@example.com'])

    // An owner's own link, revoked by an owner: it stops at once; an editor may not revoke.
    const ownerLink = (await (await owner.send(`/studio/api/launches/${slug}/preview-link`, { json: {} })).json()) as {
      url: string
    }
    expect((await headingsOf(ownerLink.url)).status).toBe(200)
    const ids = (await (await owner.send(`/studio/api/launches/${slug}/preview-links`)).json()) as Array<{ id: number }>
    const newest = ids[0]!.id
    const path = `/studio/api/launches/${slug}/preview-links/${newest}`
    expect((await editor.send(path, { method: 'DELETE' })).status).toBe(403)
    expect((await owner.send(path, { method: 'DELETE' })).status).toBe(200)
    expect((await headingsOf(ownerLink.url)).status).toBe(404)
    expect((await fetch(`${server.url}/studio/preview/${ownerLink.url.split('/').pop()}`)).status).toBe(404)

    // The editor leaves: their link ends with them.
    expect((await owner.send('/studio/api/people/eddie%40example.com', { method: 'DELETE' })).status).toBe(200)
    expect((await headingsOf(url)).status).toBe(404)
  }, 60_000)
})
