import type { Context, Hono } from 'hono'
import { createTwoFilesPatch } from 'diff'
import type { VersionDetail, VersionSummary } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import type { StoredVersion } from '../store.ts'
import { launchFor } from './access.ts'
import { publishText } from './publish-routes.ts'
import { jsonBody, messageOf, refuse, smallLimit } from './respond.ts'

function versionSummary(version: StoredVersion): VersionSummary {
  return {
    version: version.number,
    at: version.at,
    by: version.by,
    ...(version.message ? { message: version.message } : {}),
    fromDisk: version.fromDisk,
    ...(version.restoredFrom !== undefined ? { restoredFrom: version.restoredFrom } : {}),
  }
}

function versionParam(c: Context): number | undefined {
  const number = Number(c.req.param('version'))
  return Number.isSafeInteger(number) && number > 0 ? number : undefined
}

/** The version of the route's :version, if the launch has it. */
async function versionOf(ctx: StudioContext, c: Context, launch: string): Promise<StoredVersion | undefined> {
  const number = versionParam(c)
  return (number && (await ctx.store.getVersion(launch, number))) || undefined
}

/** The history of a launch: its versions, one with its diff from the one before, and restoring one. */
export function addVersionRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/api/launches/:slug/versions', async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    return c.json((await ctx.store.listVersions(launch.slug)).map(versionSummary))
  })

  app.get('/api/launches/:slug/versions/:version', async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const version = await versionOf(ctx, c, launch.slug)
    if (!version) return refuse(c, 404, `Launch "${launch.slug}" has no version ${c.req.param('version')}.`)
    const before = await ctx.store.getVersion(launch.slug, version.number - 1)
    const diff = createTwoFilesPatch(
      before ? `version ${before.number}` : 'nothing',
      `version ${version.number}`,
      before?.text ?? '',
      version.text,
      undefined,
      undefined,
      { context: 3 },
    )
    return c.json<VersionDetail>({ ...versionSummary(version), text: version.text, diff })
  })

  app.post('/api/launches/:slug/versions/:version/restore', smallLimit, async (c) => {
    const launch = launchFor(ctx, c)
    if (launch instanceof Response) return launch
    const version = await versionOf(ctx, c, launch.slug)
    if (!version) return refuse(c, 404, `Launch "${launch.slug}" has no version ${c.req.param('version')}.`)
    const message = messageOf((await jsonBody(c)) ?? {}) ?? `Restored version ${version.number}`
    return publishText(ctx, c, launch, { text: version.text, message, restoredFrom: version.number })
  })
}
