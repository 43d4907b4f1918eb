import type { Context, Hono } from 'hono'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import type { PreviewLinkRequest, PreviewLinkResponse, PreviewLinkSummary } from '../../protocol.ts'
import { ownerOnly } from '../api/access.ts'
import { refuse } from '../api/respond.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { fileText, mayEdit, servedLaunch } from '../launches.ts'
import type { StoredPreviewLink } from '../store.ts'
import { newToken, tokenHash } from '../tokens.ts'
import { imageAnswer } from './preview-images.ts'
import { previewAnswer, previewOf, previewOfText, validatorAnswer } from './preview-data.ts'

/**
 * Preview links, kept on the server (issue 42, item 8): a random token whose hash is stored with the text the link was
 * made from (the draft then, else the live text), its phase and its maker. Listed per launch, revocable by owners, and
 * working only while its maker still has an account that may edit the launch.
 */

/**
 * The link of a token with its launch, if it is kept, unrevoked, unexpired, and its maker may still edit the launch.
 */
export async function previewLinkOf(
  ctx: StudioContext,
  token: string,
): Promise<{ link: StoredPreviewLink; launch: ServedLaunch } | undefined> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined
  const link = await ctx.store.findPreviewLink(tokenHash(token), ctx.clock())
  const launch = link && servedLaunch(ctx, link.launch)
  const maker = link && (await ctx.store.findAccount(link.accountId))
  if (!link || !launch || !maker || !mayEdit(maker, link.launch)) return undefined
  return { link, launch }
}

/** The text a new link shows: the draft as it is now, else the live text. */
async function textToShow(ctx: StudioContext, launch: ServedLaunch): Promise<string | undefined> {
  const draft = await ctx.store.getDraft(launch.slug)
  return draft?.text ?? (await ctx.store.latestVersion(launch.slug))?.text ?? fileText(launch)
}

/** POST …/preview-link: a new link (in one phase if asked); GET …/preview-links: the launch's; DELETE one (owners). */
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
    const text = await textToShow(ctx, launch)
    if (text === undefined) return refuse(c, 404, `Launch "${launch.slug}" has no text to preview yet.`)
    const now = ctx.clock()
    const expiresAt = new Date(now.getTime() + ctx.previewMs).toISOString()
    const token = newToken()
    const account = c.get('account')
    const id = await ctx.store.createPreviewLink({
      tokenHash: tokenHash(token),
      launch: launch.slug,
      phase,
      text,
      accountId: account.id,
      createdAt: now.toISOString(),
      expiresAt,
    })
    await ctx.audit(
      account.email,
      'preview link',
      launch.slug,
      `${id} until ${expiresAt}${phase ? `, phase ${phase}` : ''}`,
    )
    return c.json<PreviewLinkResponse>({ url: `${ctx.linkBase(c)}/studio/preview/${token}`, expiresAt, phase })
  })

  app.get('/api/launches/:slug/preview-links', async (c) => {
    const launch = launchOf(c)
    if (launch instanceof Response) return launch
    const links = await ctx.store.listPreviewLinks(launch.slug, ctx.clock())
    return c.json<PreviewLinkSummary[]>(
      links.map(({ id, phase, madeBy, createdAt, expiresAt }) => ({ id, phase, madeBy, createdAt, expiresAt })),
    )
  })

  app.delete('/api/launches/:slug/preview-links/:id', async (c) => {
    const launch = launchOf(c)
    if (launch instanceof Response) return launch
    const refused = ownerOnly(c)
    if (refused) return refused
    const id = Number(c.req.param('id'))
    if (!Number.isSafeInteger(id) || !(await ctx.store.revokePreviewLink(launch.slug, id, ctx.clock())))
      return refuse(c, 404, `Launch "${launch.slug}" has no working preview link ${c.req.param('id')}.`)
    await ctx.audit(c.get('account').email, 'revoke preview link', launch.slug, String(id))
    return c.json({ revoked: id })
  })
}

/** What a preview link opens, without an account: the preview's JSON, its validator and its pictures. */
export function addPreviewLinkRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const linkRefused = (c: Context) =>
    refuse(
      c,
      404,
      'This preview link does not work: it has expired, was revoked or is not a real link. Ask for a new one.',
    )
  // A link shows the text and the phase it was made for, whatever the draft becomes and the query asks.
  app.get('/api/preview/:token', async (c) => {
    const found = await previewLinkOf(ctx, c.req.param('token'))
    if (!found) return linkRefused(c)
    const preview = previewOfText(ctx, found.launch, found.link.text, found.link.phase)
    return previewAnswer(c, preview, `/studio/api/preview/${c.req.param('token')}`)
  })
  app.get('/api/preview/:token/validator.js', async (c) => {
    const found = await previewLinkOf(ctx, c.req.param('token'))
    if (!found) return linkRefused(c)
    return validatorAnswer(c, found.launch, previewOfText(ctx, found.launch, found.link.text, found.link.phase))
  })
  app.get('/api/preview/:token/images/:file{.+}', async (c) => {
    const found = await previewLinkOf(ctx, c.req.param('token'))
    return found ? imageAnswer(c, found.launch) : linkRefused(c)
  })
}
