import type { Context, Hono } from 'hono'
import type { ServedLaunch } from '../../server/site/launch-publisher.ts'
import { refuse } from './api/respond.ts'
import type { StudioContext, StudioEnv } from './context.ts'
import { mayEdit, servedLaunch } from './launches.ts'
import { addImageUpload, imageAnswer } from './preview/preview-images.ts'
import { addPreviewLinkMaking, addPreviewLinkRoutes } from './preview/preview-links.ts'
import { askedPhase, previewAnswer, previewOf, validatorAnswer } from './preview/preview-data.ts'

/**
 * Previews: what the preview frame renders (the draft's config, or the live one while the draft has problems), the
 * draft form's validator compiled here as an ES module (the server runs no Vite), the launch's images, picture
 * uploads, and read-only preview links that work without an account. One file per concern in preview/.
 */

/** Adds the preview routes: the signed-in ones under /api/launches/:slug, and the link's under /api/preview/:token. */
export function addPreview(app: Hono<StudioEnv>, ctx: StudioContext): void {
  function signedInLaunch(c: Context<StudioEnv>): ServedLaunch | Response {
    const slug = c.req.param('slug') ?? ''
    const launch = servedLaunch(ctx, slug)
    if (!launch) return refuse(c, 404, `There is no launch "${slug}".`)
    if (!mayEdit(c.get('account'), slug)) return refuse(c, 403, `Your account is not given launch "${slug}".`)
    return launch
  }

  addPreviewLinkMaking(app, ctx, signedInLaunch)
  app.get('/api/launches/:slug/preview', async (c) => {
    const launch = signedInLaunch(c)
    if (launch instanceof Response) return launch
    const preview = await previewOf(ctx, launch, askedPhase(c))
    return previewAnswer(c, preview, `/studio/api/launches/${encodeURIComponent(launch.slug)}`)
  })
  app.get('/api/launches/:slug/validator.js', async (c) => {
    const launch = signedInLaunch(c)
    return launch instanceof Response ? launch : validatorAnswer(c, launch, await previewOf(ctx, launch, askedPhase(c)))
  })
  app.get('/api/launches/:slug/images/:file{.+}', (c) => {
    const launch = signedInLaunch(c)
    return launch instanceof Response ? launch : imageAnswer(c, launch)
  })
  addImageUpload(app, ctx, signedInLaunch)
  addPreviewLinkRoutes(app, ctx)
}
