import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { PageConfig } from '../../../schema/page-config.ts'
import { applyPhase, type PhasedConfig } from '../../../schema/phase-apply.ts'
import { phaseOfConfig, phaseWords } from '../../../schema/phase-schedule.ts'
import { toClientConfig } from '../../build/client-config.ts'
import { publicDirFor } from '../../config/check-page-config.ts'
import type { ServedLaunch } from '../../server/site/launch-publisher.ts'
import type {
  PreviewLinkRequest,
  PreviewLinkResponse,
  PreviewPhases,
  PreviewResponse,
  StudioProblem,
} from '../protocol.ts'
import { refuse } from './api.ts'
import type { StudioContext, StudioEnv } from './context.ts'
import { fileText, mayEdit, problemsOf, servedLaunch, studioProblems } from './launches.ts'
import { readSignedToken, signToken } from './tokens.ts'

/**
 * Previews: what the preview frame renders (the draft's config, or the live one while the draft has problems), the
 * draft form's validator compiled here as an ES module (the server runs no Vite), the launch's images, picture
 * uploads, and signed read-only preview links that work without an account.
 */

const maxImageBytes = 40 * 1024 * 1024

const imageTypes: Record<string, string> = {
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
  svg: 'image/svg+xml',
}

/**
 * The config a preview shows: the draft's when it has no problems, else the live text's, in the phase asked for (one
 * of its phases), else the one in force now: its "current" phase, or a later one whose start time has come.
 */
async function previewOf(
  ctx: StudioContext,
  launch: ServedLaunch,
  asked?: string,
): Promise<{ config?: PhasedConfig; phases?: PreviewPhases; problems: StudioProblem[] }> {
  const draft = await ctx.store.getDraft(launch.slug)
  const live = (await ctx.store.latestVersion(launch.slug))?.text ?? fileText(launch)
  const draftProblems = draft ? problemsOf(launch, draft.text) : []
  for (const text of [draft && !draftProblems.length ? draft.text : undefined, live]) {
    if (text === undefined || problemsOf(launch, text).length > 0) continue
    const config = JSON.parse(text.replace(/^\uFEFF/, '')) as PageConfig
    const phases = phasesOf(ctx, config, asked)
    return { config: applyPhase(config, phases?.shown), phases, problems: studioProblems(draftProblems) }
  }
  return { problems: studioProblems(draftProblems) }
}

/** The phases of a config as the preview lists them, the one shown being `asked` when the config has it. */
function phasesOf(ctx: StudioContext, config: PageConfig, asked: string | undefined): PreviewPhases | undefined {
  if (!config.phases) return undefined
  const timeZone = config.launch.timeZone ?? ctx.timeZone
  const live = phaseOfConfig(config, ctx.timeZone, ctx.clock().getTime()) ?? config.phases.current
  const list = config.phases.list.map((phase) => ({
    name: phase.name,
    words: phaseWords(phase.name),
    starts: phase.starts,
  }))
  const shown = asked !== undefined && list.some((phase) => phase.name === asked) ? asked : live
  return { shown, live, timeZone, list }
}

/** The phase a request asks the preview for (?phase=), if it is a phase's name at all. */
function askedPhase(c: Context): string | undefined {
  const phase = c.req.query('phase')
  return phase && /^[a-z][a-z0-9-]{0,39}$/.test(phase) ? phase : undefined
}

const compiled = new Map<string, Promise<string>>()

/** The form's validator as one self-contained ES module (Ajv's runtime helpers bundled in), cached by the form. */
function validatorModule(form: PageConfig['form']): { key: string; code: () => Promise<string> } {
  const key = createHash('sha256').update(JSON.stringify(form)).digest('hex').slice(0, 16)
  return {
    key,
    code: () => {
      let entry = compiled.get(key)
      if (!entry) {
        // Loaded on first use: the compiler (RJSF's, with Ajv) takes seconds to import, which no server start should wait for.
        entry = import('../../build/compile-form-validator.ts').then(({ bundleFormValidatorModule }) =>
          bundleFormValidatorModule(form),
        )
        entry.catch(() => compiled.delete(key))
        if (compiled.size > 50) compiled.delete(compiled.keys().next().value!)
        compiled.set(key, entry)
      }
      return entry
    },
  }
}

/** The path of a picture under a launch's images/ folder (sub-folders allowed), or undefined for anything else (.., hidden files). */
function imageFileName(name: string): string | undefined {
  const parts = name.split('/')
  const safe =
    parts.length <= 4 && parts.every((part) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(part) && !part.includes('..'))
  return safe && imageTypes[name.split('.').pop()!.toLowerCase()] ? name : undefined
}

/** Adds the preview routes: the signed-in ones under /api/launches/:slug, and the link's under /api/preview/:token. */
export function addPreview(app: Hono<StudioEnv>, ctx: StudioContext): void {
  /** The launch a preview link is for, if the link is genuine, unexpired and the launch still exists. */
  function launchOfToken(token: string): { launch: ServedLaunch; phase?: string | undefined } | undefined {
    const payload = readSignedToken<{ l: string; exp: number; p?: string }>(ctx.secret, 'preview', token)
    if (!payload || typeof payload.exp !== 'number' || payload.exp <= ctx.clock().getTime()) return undefined
    const launch = servedLaunch(ctx, payload.l)
    return launch && { launch, phase: typeof payload.p === 'string' ? payload.p : undefined }
  }
  function signedInLaunch(c: Context<StudioEnv>): ServedLaunch | Response {
    const account = c.get('account')
    const slug = c.req.param('slug') ?? ''
    const launch = servedLaunch(ctx, slug)
    if (!launch) return refuse(c, 404, `There is no launch "${slug}".`)
    if (!mayEdit(account, slug)) return refuse(c, 403, `Your account is not given launch "${slug}".`)
    return launch
  }

  async function previewData(c: Context, launch: ServedLaunch, base: string, phase: string | undefined) {
    const preview = await previewOf(ctx, launch, phase)
    if (!preview.config)
      return c.json<PreviewResponse>({ config: null, problems: preview.problems, validatorUrl: `${base}/validator.js` })
    const { key } = validatorModule(preview.config.form)
    const shown = preview.phases ? `&phase=${preview.phases.shown}` : ''
    return c.json<PreviewResponse>({
      config: toClientConfig(preview.config),
      problems: preview.problems,
      validatorUrl: `${base}/validator.js?v=${key}${shown}`,
      phases: preview.phases,
    })
  }
  async function validatorOf(c: Context, launch: ServedLaunch, phase: string | undefined) {
    const preview = await previewOf(ctx, launch, phase)
    if (!preview.config)
      return refuse(c, 404, `Launch "${launch.slug}" has no version without problems to preview yet.`)
    const { code } = validatorModule(preview.config.form)
    return c.body(await code(), 200, { 'content-type': 'text/javascript; charset=utf-8' })
  }
  function imageOf(c: Context, launch: ServedLaunch) {
    const name = imageFileName(c.req.param('file') ?? '')
    if (!name) return refuse(c, 404, 'There is no such picture.')
    let bytes: Buffer
    try {
      bytes = readFileSync(path.join(publicDirFor(launch.configFile), 'images', name))
    } catch {
      return refuse(c, 404, 'There is no such picture.')
    }
    return c.body(new Uint8Array(bytes), 200, {
      'content-type': imageTypes[name.split('.').pop()!.toLowerCase()]!,
      // A picture is never a document that runs anything, even an SVG opened on its own.
      'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
      'x-content-type-options': 'nosniff',
      'cache-control': 'no-cache',
    })
  }

  app.post('/api/launches/:slug/preview-link', async (c) => {
    const launch = signedInLaunch(c)
    if (launch instanceof Response) return launch
    if (c.get('account').role === 'sales') return refuse(c, 403, 'A sales account cannot make preview links.')
    const body = (await c.req.json<PreviewLinkRequest>().catch(() => ({}))) as PreviewLinkRequest
    const asked = typeof body.phase === 'string' ? body.phase : undefined
    const phase = asked && (await previewOf(ctx, launch, asked)).phases?.shown === asked ? asked : undefined
    if (asked !== undefined && phase === undefined)
      return refuse(c, 400, `Launch "${launch.slug}" has no phase "${asked.slice(0, 40)}" to preview.`)
    const expiresAt = new Date(ctx.clock().getTime() + ctx.previewMs)
    const token = signToken(ctx.secret, 'preview', {
      l: launch.slug,
      exp: expiresAt.getTime(),
      ...(phase ? { p: phase } : {}),
    })
    await ctx.audit(
      c.get('account').email,
      'preview link',
      launch.slug,
      `until ${expiresAt.toISOString()}${phase ? `, phase ${phase}` : ''}`,
    )
    return c.json<PreviewLinkResponse>({
      url: `${ctx.linkBase(c)}/studio/preview/${token}`,
      expiresAt: expiresAt.toISOString(),
      phase,
    })
  })

  app.get('/api/launches/:slug/preview', async (c) => {
    const launch = signedInLaunch(c)
    return launch instanceof Response
      ? launch
      : previewData(c, launch, `/studio/api/launches/${encodeURIComponent(launch.slug)}`, askedPhase(c))
  })
  app.get('/api/launches/:slug/validator.js', async (c) => {
    const launch = signedInLaunch(c)
    return launch instanceof Response ? launch : validatorOf(c, launch, askedPhase(c))
  })
  app.get('/api/launches/:slug/images/:file{.+}', (c) => {
    const launch = signedInLaunch(c)
    return launch instanceof Response ? launch : imageOf(c, launch)
  })

  app.post(
    '/api/launches/:slug/images',
    bodyLimit({
      maxSize: maxImageBytes,
      onError: (c) => refuse(c, 413, 'The picture is larger than 40 MB. Make it smaller first.'),
    }),
    async (c) => {
      const launch = signedInLaunch(c)
      if (launch instanceof Response) return launch
      if (c.get('account').role === 'sales') return refuse(c, 403, 'A sales account cannot change launches.')
      const name = c.req.query('name') ?? ''
      if (!name) return refuse(c, 400, 'The picture has no file name (send it as ?name=<file>).')
      const { ImageUploadError, safeImageName, storeImage } = await import('./images.ts')
      try {
        // An SVG can carry script: refused here rather than sanitised.
        if (safeImageName(name).extension === 'svg')
          return refuse(
            c,
            415,
            `${path.basename(name)} is an SVG drawing, which can carry script: save it as PNG or WebP and upload that.`,
          )
        const stored = await storeImage(
          path.join(publicDirFor(launch.configFile), 'images'),
          name,
          new Uint8Array(await c.req.arrayBuffer()),
        )
        await ctx.audit(c.get('account').email, 'upload picture', launch.slug, stored.src)
        return c.json({ src: stored.src, width: stored.width, height: stored.height })
      } catch (error) {
        if (error instanceof ImageUploadError) return refuse(c, 415, error.message)
        throw error
      }
    },
  )

  const linkRefused = (c: Context) =>
    refuse(c, 404, 'This preview link does not work: it has expired or is not a real link. Ask for a new one.')
  // A link shows the phase it was made for, whatever the query asks.
  app.get('/api/preview/:token', async (c) => {
    const link = launchOfToken(c.req.param('token'))
    return link
      ? previewData(c, link.launch, `/studio/api/preview/${c.req.param('token')}`, link.phase)
      : linkRefused(c)
  })
  app.get('/api/preview/:token/validator.js', async (c) => {
    const link = launchOfToken(c.req.param('token'))
    return link ? validatorOf(c, link.launch, link.phase) : linkRefused(c)
  })
  app.get('/api/preview/:token/images/:file{.+}', (c) => {
    const link = launchOfToken(c.req.param('token'))
    return link ? imageOf(c, link.launch) : linkRefused(c)
  })
}

/** Whether a preview token is genuine and unexpired (for the page at /studio/preview/:token). */
export function previewTokenWorks(ctx: StudioContext, token: string): boolean {
  const payload = readSignedToken<{ l: string; exp: number }>(ctx.secret, 'preview', token)
  return (
    payload !== undefined &&
    typeof payload.exp === 'number' &&
    payload.exp > ctx.clock().getTime() &&
    servedLaunch(ctx, payload.l) !== undefined
  )
}
