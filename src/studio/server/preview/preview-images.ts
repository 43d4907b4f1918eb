import { readFileSync } from 'node:fs'
import path from 'node:path'
import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { publicDirFor } from '../../../config/check-page-config.ts'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import { refuse } from '../api/respond.ts'
import type { StudioContext, StudioEnv } from '../context.ts'

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
 * The path of a picture under a launch's images/ folder (sub-folders allowed), or undefined for anything else (..,
 * hidden files).
 */
function imageFileName(name: string): string | undefined {
  const parts = name.split('/')
  const safe =
    parts.length <= 4 && parts.every((part) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(part) && !part.includes('..'))
  return safe && imageTypes[name.split('.').pop()!.toLowerCase()] ? name : undefined
}

/** A picture of the launch's images/ folder (the route's :file), sent so that it can never run anything. */
export function imageAnswer(c: Context, launch: ServedLaunch) {
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

/** Stores an uploaded picture in the launch's images/ (images.ts checks its bytes); SVG is refused. */
async function upload(ctx: StudioContext, c: Context<StudioEnv>, launch: ServedLaunch) {
  const name = c.req.query('name') ?? ''
  if (!name) return refuse(c, 400, 'The picture has no file name (send it as ?name=<file>).')
  const { ImageUploadError, safeImageName, storeImage } = await import('../images.ts')
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
}

/** POST /api/launches/:slug/images?name=: a picture upload (40 MB at most). */
export function addImageUpload(
  app: Hono<StudioEnv>,
  ctx: StudioContext,
  launchOf: (c: Context<StudioEnv>) => ServedLaunch | Response,
): void {
  const limit = bodyLimit({
    maxSize: maxImageBytes,
    onError: (c) => refuse(c, 413, 'The picture is larger than 40 MB. Make it smaller first.'),
  })
  app.post('/api/launches/:slug/images', limit, async (c) => {
    const launch = launchOf(c)
    if (launch instanceof Response) return launch
    if (c.get('account').role === 'sales') return refuse(c, 403, 'A sales account cannot change launches.')
    return upload(ctx, c, launch)
  })
}
