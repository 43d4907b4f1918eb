/**
 * Which phase a launch is in at a moment: the phase "current" names, or the last phase after it whose start time has
 * come. Start times are wall-clock times in the launch's time zone, turned into instants once. Pure and web-standard
 * (Intl only): the build, the Node server and the Deno function all decide with it.
 */
import { zoneClock } from './zone-clock.ts'

/** The phases' names and starts as the schedule needs them (page.config.json `phases`, or the function's copy). */
export type PhaseTimes = { current: string; list: ReadonlyArray<{ name: string; starts?: string | undefined }> }

/** A launch's phases with their start instants: decide with `phaseAt`. */
export type PhaseSchedule = { names: string[]; startsAt: Array<number | undefined>; currentIndex: number }

const wallClock = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/

/** The offset (ms) of `timeZone` from UTC at `instant`. */
function offsetAt(instant: number, timeZone: string): number {
  const parts = zoneClock(timeZone).formatToParts(new Date(instant))
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value)
  const asUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'))
  return asUtc - Math.floor(instant / 1000) * 1000
}

/**
 * The instant (ms since the epoch) a wall-clock time ("2026-03-14T10:00") is in `timeZone`, or undefined when the
 * text is not such a time or the zone is unknown. A time skipped when clocks go forward counts as the same time after
 * the change (02:30 as 03:30); a time met twice when they go back, as the first.
 */
export function wallClockInstant(local: string, timeZone: string): number | undefined {
  const match = wallClock.exec(local)
  if (!match) return undefined
  const [year, month, day, hour, minute] = match.slice(1).map(Number) as [number, number, number, number, number]
  const asUtc = Date.UTC(year, month - 1, day, hour, minute)
  const check = new Date(asUtc)
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59) return undefined
  try {
    // The offset an hour either side of the guess: whichever maps back to the wall-clock time is the one in force.
    const candidates = [offsetAt(asUtc - 3_600_000, timeZone), offsetAt(asUtc + 3_600_000, timeZone)].map(
      (offset) => asUtc - offset,
    )
    const exact = candidates.filter((instant) => instant + offsetAt(instant, timeZone) === asUtc)
    return exact.length > 0 ? Math.min(...exact) : Math.max(...candidates)
  } catch {
    return undefined
  }
}

/** Whether `timeZone` is an IANA time zone this runtime knows. */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone })
    return true
  } catch {
    return false
  }
}

/** A launch's schedule: its phases' start instants in `timeZone` (launch.timeZone, else NOTIFY_TIME_ZONE). */
export function phaseScheduleOf(phases: PhaseTimes, timeZone: string): PhaseSchedule {
  const names = phases.list.map((phase) => phase.name)
  return {
    names,
    startsAt: phases.list.map((phase) =>
      phase.starts === undefined ? undefined : wallClockInstant(phase.starts, timeZone),
    ),
    currentIndex: Math.max(0, names.indexOf(phases.current)),
  }
}

/** The name of the phase in force at `now`: the last phase from "current" on whose start has come. */
export function phaseAt(schedule: PhaseSchedule, now: number): string {
  let index = schedule.currentIndex
  for (let i = schedule.currentIndex + 1; i < schedule.names.length; i++) {
    const starts = schedule.startsAt[i]
    if (starts !== undefined && starts <= now) index = i
  }
  return schedule.names[index]!
}

/**
 * The phase a config is in at `now` (ms), its start times read in launch.timeZone, else `defaultTimeZone`
 * (NOTIFY_TIME_ZONE); undefined for a config without phases.
 */
export function phaseOfConfig(
  config: { launch: { timeZone?: string | undefined }; phases?: PhaseTimes | undefined },
  defaultTimeZone: string,
  now: number,
): string | undefined {
  if (!config.phases) return undefined
  return phaseAt(phaseScheduleOf(config.phases, config.launch.timeZone ?? defaultTimeZone), now)
}

const defaultPhaseWords: Record<string, string> = {
  'coming-soon': 'Coming soon',
  vip: 'VIP',
  public: 'Public release',
  'sold-out': 'Sold out',
}

/**
 * A phase's name as the sales team reads it (leads page, notification): the four default phases in their usual
 * words, any other name with its hyphens as spaces and a capital first letter. Exports and webhooks keep the name.
 */
export function phaseWords(name: string): string {
  const words = defaultPhaseWords[name] ?? name.replace(/[-_]+/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}
