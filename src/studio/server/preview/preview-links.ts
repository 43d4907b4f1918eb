import type { Context, Hono } from 'hono'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import type { PreviewLinkRequest, PreviewLinkResponse } from '../../protocol.ts'
import { refuse } from '../api/respond.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { servedLaunch } from '../launches.ts'
import { readSignedToken, signToken } from '../tokens.ts'
import { imageAnswer } from './preview-images.ts'
import { previewAnswer, previewOf, validatorAnswer } from './preview-data.ts'

/** The launch a preview link is for, if the link is genuine, unexpired and the launch still exists. */
function launchOfToken(
  ctx: StudioContext,
  token: string,
): { launch: ServedLaunch; phase?: string | undefined } | undefined {
  const payload = readSignedToken<{ l: string; exp: number; p?: string }>(ctx.secret, 'preview', token)
  if (!payload || typeof payload.exp !== 'number' || payload.exp <= ctx.clock().getTime()) return undefined
  const launch = servedLaunch(ctx, payload.l)
  return launch && { launch, phase: typeof payload.p === 'string' ? payload.p : undefined }
}

/** Whether a preview token is genuine and unexpired (for the page at /studio/preview/:token). */
export function previewTokenWorks(ctx: StudioContext, token: string): boolean {
  return launchOfToken(ctx, token) !== undefined
}

/** POST /api/launches/:slug/preview-link: a read-only link for people without an account, in one phase if asked. */
export function addPreviewLinkMaking(
  app: Hono<StudioEnv>,
  ctx: StudioContext,
  launchOf: (c: Context<StudioEnv>) => ServedLaunch | Response,
): void {
  app.post('/api/launches/:slug/preview-link', async (c) => {
    const launch = launchOf(c)
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
    const detail = `until ${expiresAt.toISOString()}${phase ? `, phase ${phase}` : ''}`
    await ctx.audit(c.get('account').email, 'preview link', launch.slug, detail)
    return c.json<PreviewLinkResponse>({
      url: `${ctx.linkBase(c)}/studio/preview/${token}`,
      expiresAt: expiresAt.toISOString(),
      phase,
    })
  })
}

/** What a preview link opens, without an account: the preview's JSON, its validator and its pictures. */
export function addPreviewLinkRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const linkRefused = (c: Context) =>
    refuse(c, 404, 'This preview link does not work: it has expired or is not a real link. Ask for a new one.')
  // A link shows the phase it was made for, whatever the query asks.
  app.get('/api/preview/:token', async (c) => {
    const link = launchOfToken(ctx, c.req.param('token'))
    if (!link) return linkRefused(c)
    const preview = await previewOf(ctx, link.launch, link.phase)
    return previewAnswer(c, preview, `/studio/api/preview/${c.req.param('token')}`)
  })
  app.get('/api/preview/:token/validator.js', async (c) => {
    const link = launchOfToken(ctx, c.req.param('token'))
    return link ? validatorAnswer(c, link.launch, await previewOf(ctx, link.launch, link.phase)) : linkRefused(c)
  })
  app.get('/api/preview/:token/images/:file{.+}', (c) => {
    const link = launchOfToken(ctx, c.req.param('token'))
    return link ? imageAnswer(c, link.launch) : linkRefused(c)
  })
}
