// How a broken launch is told: its line in the log and the key of its alert (one alert per distinct break).
import { createHash } from 'node:crypto'
import type { LaunchProblem, LiveLaunch } from './live-launches.ts'

/** The one line a broken launch gets in the log, before its whole message. */
export function brokenLine(launch: Pick<LiveLaunch, 'slug' | 'problem' | 'version'>): string {
  return `Launch ${launch.slug} is broken: ${launch.problem!.place}. ${launch.version ? 'Its last good build keeps serving.' : 'Nothing was built yet: its addresses answer 503 "not published yet".'}`
}

/** The key of the alert for a launch broken this way (a different break is told again). */
export function brokenAlertKey(slug: string, problem: LaunchProblem): string {
  return `launch-broken:${slug}:${createHash('sha256').update(problem.message).digest('hex').slice(0, 16)}`
}
