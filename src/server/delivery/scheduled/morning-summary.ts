/**
 * The morning summary (issue 25, page.config.json launch.morningSummary): once a day, from its time on, the sales
 * manager gets the day before's registrations (buyers and realtors), where they came from (the dashboard's sources,
 * counted by the store: LeadPulse) and the last seven days, day by day, in the launch's time zone. Queued through the
 * outbox with the day's claim (store/daily-runs.ts) in one transaction: one summary a day, whatever the number of
 * servers on one database or of restarts. Suspected spam is not counted, as on the dashboard.
 */
import { lastDays } from '../../store/days.ts'
import type { LeadPulse, LeadStore, OutgoingMail, PulseDay } from '../../store/store.ts'
import { escapeHtml } from '../escape-html.ts'
import { headerSafe, messageDomain } from '../mailer.ts'
import { teamMailHtml, teamMailSender } from '../notification.ts'

/** A source as the team reads it (the dashboard's words too): '' is a visit or registration that came with none. */
export const sourceWords = (source: string) => source || 'Direct (no source)'

/** A launch as the summary reads it (its FunctionLaunch, with the server's NOTIFY_EMAIL applied to notifyEmail). */
export type SummaryLaunch = {
  slug: string
  site: { name: string; brokerage: string }
  notifyEmail: string
  morningSummary?: { to?: string | undefined; at: string; timeZone?: string | undefined } | undefined
}

export type MorningSummaryOptions = {
  store: Pick<LeadStore, 'countPulse' | 'queueDailyMail' | 'hasDailyRun'>
  /** The launches served now (read at each check, so a publish that turns the summary on is followed). */
  launches: () => SummaryLaunch[]
  /** The server's NOTIFY_TIME_ZONE: a launch without launch.timeZone is read in it. */
  timeZone: string
  clock?: (() => Date) | undefined
  /** Called after a summary was queued: the outbox worker's kick. */
  onQueued?: (() => void) | undefined
  log?: { error(message: string, error?: unknown): void }
}

/** The summaries' scheduler: `check` queues each summary that is due; `start` checks every `everyMs` too. */
export type MorningSummaries = { check(): Promise<number>; start(everyMs: number): void; stop(): void }

/** The daily_runs job of a launch's summary; its day is the day summarized. */
export const summaryJob = (slug: string) => `morning-summary:${slug}`

// The hour and minute of an instant in a time zone ("07:30"), one format per zone.
const clockFormats = new Map<string, Intl.DateTimeFormat>()
function clockOf(at: Date, timeZone: string): string {
  let format = clockFormats.get(timeZone)
  if (!format)
    clockFormats.set(
      timeZone,
      (format = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })),
    )
  return format.format(at)
}

/** Queues each launch's summary once its time has come that day and no server has queued it yet. */
export function createMorningSummaries(options: MorningSummaryOptions): MorningSummaries {
  const clock = options.clock ?? (() => new Date())
  const log = options.log ?? { error: (m: string, e?: unknown) => console.error(m, e ?? '') }
  // The day each launch's summary was last seen done, by this process: the store is asked once a day, not each minute.
  const done = new Map<string, string>()
  let timer: ReturnType<typeof setInterval> | undefined
  let running: Promise<number> | undefined

  async function checkLaunch(launch: SummaryLaunch, now: Date): Promise<boolean> {
    const settings = launch.morningSummary
    if (!settings) return false
    const timeZone = settings.timeZone ?? options.timeZone
    if (clockOf(now, timeZone) < settings.at) return false
    const days = lastDays(now, 8, timeZone).slice(0, 7)
    const day = days.at(-1)!
    const job = summaryJob(launch.slug)
    if (done.get(launch.slug) === day.day) return false
    if (await options.store.hasDailyRun(job, day.day)) {
      done.set(launch.slug, day.day)
      return false
    }
    const [week, yesterday] = await Promise.all([
      options.store.countPulse({ launch: launch.slug, days }),
      options.store.countPulse({ launch: launch.slug, days: [day] }),
    ])
    const mail = composeMorningSummary({
      slug: launch.slug,
      siteName: launch.site.name,
      brokerage: launch.site.brokerage,
      to: settings.to ?? launch.notifyEmail,
      day,
      week,
      yesterday,
    })
    const queued = await options.store.queueDailyMail(job, day.day, mail, now)
    done.set(launch.slug, day.day)
    return queued
  }

  async function check(): Promise<number> {
    const now = clock()
    let queued = 0
    for (const launch of options.launches()) {
      try {
        if (await checkLaunch(launch, now)) queued += 1
      } catch (error) {
        log.error(`Morning summary of ${launch.slug} could not be queued (tried again at the next check)`, error)
      }
    }
    if (queued > 0) options.onQueued?.()
    return queued
  }

  return {
    check() {
      // Checks never overlap: a slow database does not compose one summary twice in this process.
      running ??= check().finally(() => {
        running = undefined
      })
      return running
    },
    start(everyMs) {
      timer ??= setInterval(() => void this.check(), everyMs)
      ;(timer as { unref?: () => void }).unref?.()
      void this.check()
    },
    stop() {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
    },
  }
}

/** What a summary says: the launch, the day summarized and its counts, and the seven days up to it. */
export type SummaryContent = {
  slug: string
  siteName: string
  brokerage: string
  to: string
  day: PulseDay
  week: LeadPulse
  yesterday: LeadPulse
}

const longDay = new Intl.DateTimeFormat('en-CA', {
  weekday: 'long',
  month: 'long',
  day: 'numeric',
  year: 'numeric',
  timeZone: 'UTC',
})
const shortWeekday = new Intl.DateTimeFormat('en-CA', { weekday: 'short', timeZone: 'UTC' })
const atNoon = (day: string) => new Date(`${day}T12:00:00Z`)
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * The summary's mail: plain text and HTML (a heading, two small tables), the brokerage's registered name at its foot.
 */
export function composeMorningSummary(content: SummaryContent): OutgoingMail {
  const { siteName, day, week, yesterday } = content
  const total = yesterday.days[0]?.registrations ?? 0
  const title = `${siteName}: ${plural(total, 'registration')} on ${longDay.format(atNoon(day.day))}`
  const kinds = `${plural(yesterday.buyers, 'buyer')}, ${plural(yesterday.realtors, 'realtor')}`
  const sources: Array<[string, number]> = yesterday.sources
    .filter((s) => s.registrations > 0)
    .map((s) => [sourceWords(s.source), s.registrations])
  const trend: Array<[string, number]> = week.days.map((d) => [
    `${shortWeekday.format(atNoon(d.day))} ${d.day}`,
    d.registrations,
  ])
  const weekTotal = week.days.reduce((sum, d) => sum + d.registrations, 0)
  const sender = `${teamMailSender(siteName, content.brokerage)} The leads page's dashboard has the last 30 days.`
  const text = [
    title,
    '',
    `Registrations: ${total} (${kinds})`,
    '',
    'Where they came from:',
    ...(sources.length ? sources.map(([source, n]) => `  ${source}: ${n}`) : ['  (none)']),
    '',
    `The last 7 days (${weekTotal} in all):`,
    ...trend.map(([d, n]) => `  ${d}: ${n}`),
    '',
    '--',
    sender,
    '',
  ].join('\n')
  const table = (caption: string, head: string, rows: Array<[string, number]>) =>
    `<table style="border-collapse:collapse;margin:8px 0 16px"><caption style="text-align:left;font-weight:600;padding-bottom:4px">${escapeHtml(caption)}</caption>` +
    `<tr><th scope="col" align="left" style="padding:2px 16px 2px 0">${escapeHtml(head)}</th><th scope="col" align="right">Registrations</th></tr>` +
    rows
      .map(([k, n]) => `<tr><td style="padding:2px 16px 2px 0">${escapeHtml(k)}</td><td align="right">${n}</td></tr>`)
      .join('') +
    '</table>'
  const html = teamMailHtml(
    [
      `<h1 style="font-size:18px">${escapeHtml(title)}</h1>`,
      `<p>Registrations: <strong>${total}</strong> (${escapeHtml(kinds)})</p>`,
      sources.length ? table('Where they came from', 'Source', sources) : '<p>Where they came from: none.</p>',
      table(`The last 7 days (${weekTotal} in all)`, 'Day', trend),
    ],
    sender,
  )
  const domain = messageDomain(content.to)
  return {
    to: headerSafe(content.to),
    subject: headerSafe(title).slice(0, 200),
    text,
    html,
    messageId: `<summary.${content.slug}.${day.day}@${domain}>`,
    idempotencyKey: `summary.${content.slug}.${day.day}`,
  }
}
