import { readFileSync, existsSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import path from 'node:path'
import { build } from 'esbuild'
import type { PageConfig } from '../../../schema/page-config.ts'
import { applyPhase, hiddenAnchors } from '../../../schema/phase-apply.ts'
import { phaseWords } from '../../../schema/phase-schedule.ts'
import { toClientConfig } from '../../../src/build/client-config.ts'
import { compileFormValidatorModule } from '../../../src/build/compile-form-validator.ts'
import type { LaunchDetail, StudioProblem, VersionSummary } from '../../../src/studio/protocol.ts'

// A stand-in for the studio's server, speaking src/studio/protocol.ts from memory, serving the BUILT studio client
// (dist/_studio) under the same paths and the same strict CSP as the real one. It lets the client be tested and
// photographed before (and apart from) the real server; the end-to-end test drives the real one.

/** The cookie that stands for a session here (a test adds it to its browser context to be signed in). */
export const stubSessionCookie = { name: 'stub_session', value: '1', path: '/studio' }

export type StubStudio = {
  url: string
  close: () => Promise<void>
  drafts: Map<string, string>
  published: Map<string, string[]>
}

const studioDir = path.resolve('dist/_studio')
const csp =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'self'; object-src 'none'; base-uri 'none'"

function problemsOf(text: string): StudioProblem[] {
  try {
    const config = JSON.parse(text) as { sections?: { heading?: unknown }[] }
    const heading = config.sections?.[0]?.heading
    if (heading === '')
      return [
        {
          line: 1,
          column: 1,
          where: 'sections[0].heading',
          message: 'The hero heading is empty.',
          fix: 'Write a heading.',
        },
      ]
    return []
  } catch (error) {
    return [
      {
        line: 1,
        column: 1,
        where: 'the file',
        message: `The text is not valid JSON: ${(error as Error).message}`,
        fix: 'Fix the brackets or quotes.',
      },
    ]
  }
}

async function validatorModule(config: PageConfig): Promise<string> {
  const result = await build({
    stdin: { contents: compileFormValidatorModule(config.form), resolveDir: process.cwd(), loader: 'js' },
    bundle: true,
    format: 'esm',
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

/** Starts the stand-in on 127.0.0.1 with the project's launches (slug → config file). */
export async function startStubStudio(launches: Record<string, string>): Promise<StubStudio> {
  const drafts = new Map<string, string>()
  const published = new Map<string, string[]>()
  const when = new Map<string, string[]>()
  for (const [slug, file] of Object.entries(launches)) {
    published.set(slug, [readFileSync(file, 'utf8')])
    when.set(slug, ['2026-11-20T10:00:00Z'])
  }
  const validators = new Map<string, string>()

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' })
    res.end(JSON.stringify(body))
  }
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }
  const siteName = (text: string) => (JSON.parse(text) as PageConfig).site.name
  const live = (slug: string) => published.get(slug)!.at(-1)!
  const versions = (slug: string): VersionSummary[] =>
    published
      .get(slug)!
      .map((_, i) => ({
        version: i + 1,
        at: when.get(slug)![i]!,
        by: i === 0 ? 'disk' : 'owner@example.com',
        fromDisk: i === 0,
        message: i === 0 ? undefined : 'Hero heading',
      }))
      .reverse()

  async function api(req: IncomingMessage, res: ServerResponse, route: string): Promise<void> {
    const method = req.method ?? 'GET'
    if (!/(^|;\s*)stub_session=1/.test(req.headers.cookie ?? '')) return json(res, 401, { error: 'Sign in first.' })
    if (route === '/me') return json(res, 200, { email: 'owner@example.com', role: 'owner', totp: false })
    if (route === '/launches' && method === 'GET') {
      return json(
        res,
        200,
        Object.keys(launches).map((slug) => ({
          slug,
          siteName: siteName(live(slug)),
          status: 'live',
          localUrl: `http://${slug}.localhost/`,
          liveVersion: published.get(slug)!.length,
          draft: drafts.has(slug) ? { by: 'owner@example.com', updatedAt: '2026-11-25T16:00:00Z' } : undefined,
        })),
      )
    }
    const launch = /^\/launches\/([^/]+)(\/.*)?$/.exec(route)
    if (launch && launches[launch[1]!]) {
      const slug = launch[1]!
      const rest = launch[2] ?? ''
      if (rest === '' && method === 'GET') {
        const detail: LaunchDetail = {
          slug,
          siteName: siteName(live(slug)),
          status: 'live',
          localUrl: `http://${slug}.localhost/`,
          liveText: live(slug),
          draftText: drafts.get(slug),
          problems: problemsOf(drafts.get(slug) ?? live(slug)),
        }
        return json(res, 200, detail)
      }
      if (rest === '/draft' && method === 'PUT') {
        const { text } = JSON.parse(await readBody(req)) as { text: string }
        drafts.set(slug, text)
        return json(res, 200, { savedAt: new Date().toISOString(), problems: problemsOf(text) })
      }
      if (rest === '/preview') {
        const text = drafts.get(slug) ?? live(slug)
        const problems = problemsOf(text)
        if (problems.length) return json(res, 200, { config: null, problems, validatorUrl: '' })
        const whole = JSON.parse(text) as PageConfig
        // The phases as the real server lists them, with no schedule: the one shown is the one asked for, else
        // "current".
        const asked = new URL(req.url ?? '/', 'http://stub').searchParams.get('phase') ?? ''
        const list =
          whole.phases?.list.map((phase) => ({
            name: phase.name,
            words: phaseWords(phase.name),
            starts: phase.starts,
          })) ?? []
        const phases = whole.phases && {
          shown: list.some((p) => p.name === asked) ? asked : whole.phases.current,
          live: whole.phases.current,
          timeZone: 'America/Toronto',
          list,
          hidden: hiddenAnchors(whole, list.some((p) => p.name === asked) ? asked : whole.phases.current),
        }
        // As the real server's editor preview: the sections the phase hides stay, for the canvas to dim.
        const config = applyPhase(whole, phases?.shown, { hidden: 'keep' })
        const key = `${slug}-${JSON.stringify(config.form).length}`
        if (!validators.has(key)) validators.set(key, await validatorModule(config))
        return json(res, 200, {
          config: toClientConfig(config),
          problems,
          validatorUrl: `/studio/api/validators/${key}.js`,
          phases,
        })
      }
      if (rest === '/publish' && method === 'POST') {
        const body = JSON.parse(await readBody(req)) as { text?: string }
        const text = body.text ?? drafts.get(slug) ?? live(slug)
        const problems = problemsOf(text)
        if (problems.length) return json(res, 422, { error: 'The draft has problems.', problems })
        published.get(slug)!.push(text)
        when.get(slug)!.push(new Date().toISOString())
        drafts.delete(slug)
        return json(res, 200, { version: published.get(slug)!.length, ms: 2400 })
      }
      if (rest === '/versions') return json(res, 200, versions(slug))
      const version = /^\/versions\/(\d+)(\/restore)?$/.exec(rest)
      if (version) {
        const n = Number(version[1])
        const text = published.get(slug)![n - 1]
        if (text === undefined) return json(res, 404, { error: 'No such version.' })
        if (version[2]) {
          published.get(slug)!.push(text)
          when.get(slug)!.push(new Date().toISOString())
          drafts.delete(slug)
          return json(res, 200, { version: published.get(slug)!.length, ms: 1900 })
        }
        const before = published.get(slug)![n - 2] ?? ''
        const diff =
          before === text
            ? ''
            : `@@ version ${n - 1} → ${n} @@\n${before
                .split('\n')
                .filter((l) => !text.includes(l))
                .map((l) => `-${l}`)
                .join('\n')}\n${text
                .split('\n')
                .filter((l) => !before.includes(l))
                .map((l) => `+${l}`)
                .join('\n')}`
        return json(res, 200, { ...versions(slug).find((v) => v.version === n), text, diff })
      }
      if (rest === '/preview-link' && method === 'POST')
        return json(res, 200, {
          url: `http://127.0.0.1/studio/preview/${slug}-token`,
          expiresAt: '2026-12-02T16:00:00Z',
        })
      if (rest.startsWith('/images/')) {
        const file = path.join(
          path.dirname(launches[slug]!),
          'public/images',
          decodeURIComponent(rest.slice('/images/'.length)),
        )
        if (!existsSync(file)) return json(res, 404, { error: 'No such picture.' })
        res.writeHead(200, { 'content-type': file.endsWith('.svg') ? 'image/svg+xml' : 'application/octet-stream' })
        return void res.end(readFileSync(file))
      }
    }
    const validator = /^\/validators\/(.+)\.js$/.exec(route)
    if (validator && validators.has(validator[1]!)) {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' })
      return void res.end(validators.get(validator[1]!))
    }
    if (route === '/people') {
      if (method === 'POST')
        return json(res, 200, {
          link: 'http://127.0.0.1/studio/welcome/abc123',
          expiresAt: '2026-11-26T16:00:00Z',
          emailed: false,
        })
      return json(res, 200, [
        { email: 'owner@example.com', role: 'owner', invitedAt: '2026-11-20T10:00:00Z', active: true },
        {
          email: 'sam.sales@example.com',
          role: 'sales',
          launches: Object.keys(launches).slice(0, 1),
          invitedAt: '2026-11-21T10:00:00Z',
          active: false,
        },
      ])
    }
    if (route === '/audit') {
      return json(res, 200, [
        {
          at: '2026-11-25T16:02:00Z',
          who: 'owner@example.com',
          action: 'publish',
          launch: Object.keys(launches)[0],
          detail: 'version 2',
        },
        { at: '2026-11-25T15:58:00Z', who: 'owner@example.com', action: 'sign-in' },
      ])
    }
    return json(res, 404, { error: 'Not found.' })
  }

  function serveFile(res: ServerResponse, file: string): void {
    const type = file.endsWith('.js')
      ? 'text/javascript'
      : file.endsWith('.css')
        ? 'text/css'
        : 'text/html; charset=utf-8'
    res.writeHead(200, { 'content-type': type })
    res.end(readFileSync(file))
  }

  const server: Server = createServer((req, res) => {
    res.setHeader('content-security-policy', csp)
    const url = new URL(req.url ?? '/', 'http://stub')
    const route = url.pathname
    if (route.startsWith('/studio/api/')) {
      void api(req, res, route.slice('/studio/api'.length)).catch((error: unknown) =>
        json(res, 500, { error: String(error) }),
      )
      return
    }
    if (route === '/studio/' || route.startsWith('/studio/launches/'))
      return serveFile(res, path.join(studioDir, 'index.html'))
    if (route === '/studio/preview-frame') return serveFile(res, path.join(studioDir, 'preview.html'))
    const asset = /^\/studio\/assets\/([\w.-]+)$/.exec(route)
    if (asset && existsSync(path.join(studioDir, 'assets', asset[1]!)))
      return serveFile(res, path.join(studioDir, 'assets', asset[1]!))
    res.writeHead(404)
    res.end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${address.port}`,
    drafts,
    published,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  }
}
