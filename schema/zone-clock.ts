// A time zone's wall clock, read part by part (formatToParts: year, month, day, hour, minute, second, two digits each
// but the year, hours 00–23). One formatter per zone, made once: making a DateTimeFormat costs far more than using
// one, and the phase in force, the dashboard's days and the CSVs' times read it for every request or row.
// Web-standard only.

const clocks = new Map<string, Intl.DateTimeFormat>()

/** The wall clock of `timeZone` (an IANA name); throws a RangeError for a zone that is not one, as Intl does. */
export function zoneClock(timeZone: string): Intl.DateTimeFormat {
  let clock = clocks.get(timeZone)
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    clocks.set(timeZone, clock)
  }
  return clock
}
