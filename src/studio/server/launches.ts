import { readFileSync } from 'node:fs'
import { checkPageConfigText, publicDirFor, type Problem } from '../../config/check-page-config.ts'
import type { PublishProblem, ServedLaunch } from '../../server/site/launch-publisher.ts'
import type { LaunchSummary, StudioProblem } from '../protocol.ts'
import type { StudioContext } from './context.ts'
import type { Account } from './store.ts'

/** Whether an account may see a launch at all: not sales, and the launch is one of its own (or it has all). */
export function mayEdit(account: Account, slug: string): boolean {
  return account.role !== 'sales' && (account.launches === undefined || account.launches.includes(slug))
}

/** The launch of a slug, as the publisher serves it. */
export function servedLaunch(ctx: StudioContext, slug: string): ServedLaunch | undefined {
  return ctx.publisher.list().find((launch) => launch.slug === slug)
}

/** The text's problems as `npm run validate` gives them, images looked up beside the launch's file. */
export function problemsOf(launch: ServedLaunch, text: string): Problem[] {
  return checkPageConfigText(text, launch.configFile, publicDirFor(launch.configFile))
}

/** Problems as the protocol carries them (without the file's path and the excerpt). */
export function studioProblems(problems: ReadonlyArray<PublishProblem>): StudioProblem[] {
  return problems.map(({ line, column, where, message, fix }) => ({ line, column, where, message, fix }))
}

/** The launch's file as it is on disk now; undefined when it cannot be read. */
export function fileText(launch: ServedLaunch): string | undefined {
  try {
    return readFileSync(launch.configFile, 'utf8')
  } catch {
    return undefined
  }
}

/** What the launches list shows of a launch. */
export async function summaryOf(ctx: StudioContext, launch: ServedLaunch): Promise<LaunchSummary> {
  const [draft, live] = await Promise.all([ctx.store.getDraft(launch.slug), ctx.store.latestVersion(launch.slug)])
  const onDisk = fileText(launch)
  return {
    slug: launch.slug,
    siteName: launch.siteName,
    status: launch.status,
    localUrl: launch.localUrl,
    ...(draft ? { draft: { by: draft.by, updatedAt: draft.updatedAt } } : {}),
    ...(live ? { liveVersion: live.number, changedOnDisk: onDisk !== live.text } : {}),
  }
}

/**
 * Records the file on disk as a version "from disk" for each launch whose file differs from its last version and
 * has no problems (identical bytes are not a new version): run at start, so the history begins with what serves
 * and a developer's change is on record.
 */
export async function recordDiskVersions(ctx: StudioContext): Promise<number> {
  let recorded = 0
  for (const launch of ctx.publisher.list()) {
    const text = fileText(launch)
    if (text === undefined) continue
    const live = await ctx.store.latestVersion(launch.slug)
    if (live?.text === text || problemsOf(launch, text).length) continue
    // Another server on the same database may have recorded it since the look above: then it is on record already.
    const number = await ctx.store.addDiskVersion({
      launch: launch.slug,
      text,
      by: 'disk',
      at: ctx.clock().toISOString(),
      fromDisk: true,
    })
    if (number === undefined) continue
    await ctx.audit('disk', 'published from disk', launch.slug, `version ${number}`)
    recorded++
  }
  return recorded
}
