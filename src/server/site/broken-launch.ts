// How a broken launch is told: its line in the log and the key of its alert (one alert per distinct break).
import { createHash } from 'node:crypto'
import type { Alerts } from '../delivery/alerts.ts'
import type { LaunchProblem, LiveLaunch } from './live-launches.ts'

/** The one line a broken launch gets in the log, before its whole message. */
export function brokenLine(launch: Pick<LiveLaunch, 'slug' | 'problem' | 'version'>): string {
  return `Launch ${launch.slug} is broken: ${launch.problem!.place}. ${launch.version ? 'Its last good build keeps serving.' : 'Nothing was built yet: its addresses answer 503 "not published yet".'}`
}

/** The key of the alert for a launch broken this way (a different break is told again). */
export function brokenAlertKey(slug: string, problem: LaunchProblem): string {
  return `launch-broken:${slug}:${createHash('sha256').update(problem.message).digest('hex').slice(0, 16)}`
}

/** Tells the owners of each launch broken at start (once per break); a launch that works again may be told anew. */
export function alertBrokenLaunches(alerts: Alerts, launches: readonly LiveLaunch[]): void {
  for (const launch of launches) {
    if (launch.problem) {
      alerts.raise({
        key: brokenAlertKey(launch.slug, launch.problem),
        kind: 'launch-broken',
        launch: launch.slug,
        subject: `Launch ${launch.slug} is broken: ${launch.problem.place}`,
        text: `${brokenLine(launch)}\n\n${launch.problem.message}`,
      })
    } else {
      alerts.forget(`launch-broken:${launch.slug}:`)
    }
  }
}
