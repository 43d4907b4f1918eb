// Days as the team reads them: a date (YYYY-MM-DD) in the team's time zone (NOTIFY_TIME_ZONE), and its bounds in UTC.
import { zoneClock } from '../../../schema/zone-clock.ts'
import type { PulseDay } from './store.ts'

// One format per time zone: making a DateTimeFormat costs far more than using one (a dashboard reads 60 days' bounds).
const dayFormats = new Map<string, Intl.DateTimeFormat>()

/** The first instant of a day (YYYY-MM-DD) in a time zone, as ISO 8601 UTC; undefined when it is not a day. */
export function dayStart(day: string, timeZone: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!match) return undefined
  const utc = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))
  if (Number.isNaN(utc) || new Date(utc).toISOString().slice(0, 10) !== day) return undefined
  // The zone's offset at that moment, read back through Intl; twice, for a day that starts near a clock change.
  const format = zoneClock(timeZone)
  const offsetAt = (ms: number) => {
    const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((part) => [part.type, part.value]))
    return (
      Date.UTC(
        Number(parts.year),
        Number(parts.month) - 1,
        Number(parts.day),
        Number(parts.hour),
        Number(parts.minute),
        Number(parts.second),
      ) - ms
    )
  }
  const first = utc - offsetAt(utc)
  return new Date(utc - offsetAt(first)).toISOString()
}

/** The day after a day (YYYY-MM-DD). */
export function nextDay(day: string): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10)
}

/** The date (YYYY-MM-DD) an instant falls on in a time zone. */
export function dayOf(at: Date, timeZone: string): string {
  let format = dayFormats.get(timeZone)
  if (!format)
    dayFormats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    )
  return format.format(at)
}

/** The `count` days up to and including the day of `now` in a time zone, oldest first, each with its bounds in UTC. */
export function lastDays(now: Date, count: number, timeZone: string): PulseDay[] {
  const today = dayOf(now, timeZone)
  const days: PulseDay[] = []
  let day = new Date(Date.parse(`${today}T00:00:00Z`) - (count - 1) * 86_400_000).toISOString().slice(0, 10)
  for (let i = 0; i < count; i++) {
    const after = nextDay(day)
    days.push({ day, start: dayStart(day, timeZone)!, end: dayStart(after, timeZone)! })
    day = after
  }
  return days
}
