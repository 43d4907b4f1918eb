/**
 * A phase's announcement (page.config.json phases.list[].announcement, issue 24): when a phase's start time passes,
 * the Node server queues it once per phase and launch (a start moved after it went never sends it again) to the
 * launch's registrants who may receive marketing (store/announcements.ts:
 * listRecipients, as a send from the leads page), through the outbox, as an announcement the leads page lists with
 * author "Phase <name> start". Once across servers on one database and restarts: its key is derived from (launch,
 * phase, start instant) and unique in the store, so a second insert is refused. A start that passed more than 24 hours
 * before this process first saw it is not sent (a config edited after the fact must not mail the list late). Checked
 * each minute on the morning summaries' tick (createScheduledMail).
 */
import type { FunctionPhases } from '../../../../schema/function-launch.ts'
import { phaseScheduleOf } from '../../../../schema/phase-schedule.ts'
import { listRecipients } from '../../store/announcements.ts'
import type { AddressKey, LeadStore } from '../../store/store.ts'
import { composeAnnouncement, type AnnouncementMailSettings } from '../announcement.ts'
import {
  createMorningSummaries,
  type MorningSummaries,
  type MorningSummaryOptions,
  type SummaryLaunch,
} from './morning-summary.ts'

/** A launch as the phase announcements read it (its FunctionLaunch fits). */
export type PhaseLaunch = { slug: string; phases?: FunctionPhases | undefined }

export type PhaseAnnouncementOptions = {
  store: Pick<LeadStore, 'listMarketableLeads' | 'isSuppressed' | 'saveAnnouncement' | 'listAnnouncements'>
  /** The launches served now (read at each check, so a publish that adds an announcement is followed). */
  launches: () => PhaseLaunch[]
  /** The server's NOTIFY_TIME_ZONE: the start times of a launch without launch.timeZone are read in it. */
  timeZone: string
  /**
   * The launch's mail settings (its reply's sender and unsubscribe words, its link secret), or undefined without a
   * reply.
   */
  mailOf(slug: string): AnnouncementMailSettings | undefined
  /** The suppression list's key of an address (suppression.ts). */
  suppressionKeyOf(email: string): Promise<AddressKey>
  clock?: (() => Date) | undefined
  /** Called after an announcement was queued: the outbox worker's kick. */
  onQueued?: (() => void) | undefined
  log?: { info(message: string): void; error(message: string, error?: unknown): void }
}

/** How long after its start a phase's announcement may still go out, counted from when this process first saw it. */
export const lateAfterMs = 24 * 3_600_000

/** The author the leads page shows for a phase's announcement. */
export const phaseAuthor = (phase: string) => `Phase ${phase} start`

/**
 * The key of a phase's announcement: a UUID (RFC 9562 version 8) made from SHA-256 of the launch, the phase and its
 * start instant, so every server and every restart derive the same one, and a moved start time makes a new one.
 */
export async function phaseAnnouncementKey(slug: string, phase: string, startsAt: number): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest(
      'SHA-256',
      new TextEncoder().encode(`phase-announcement\n${slug}\n${phase}\n${new Date(startsAt).toISOString()}`),
    ),
  )
  const bytes = digest.slice(0, 16)
  bytes[6] = (bytes[6]! & 0x0f) | 0x80
  bytes[8] = (bytes[8]! & 0x3f) | 0x80
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** What one process's checks remember, by announcement key: when it first saw each, and those it is done with. */
type PhaseState = {
  options: PhaseAnnouncementOptions
  log: NonNullable<PhaseAnnouncementOptions['log']>
  firstSeen: Map<string, number>
  done: Set<string>
  warned: Set<string>
}

/** One phase's announcement as a check sees it. */
type PhaseDue = { slug: string; phase: string; draft: { subject: string; text: string }; startsAt: number; key: string }

async function sentBefore(state: PhaseState, slug: string, key: string): Promise<boolean> {
  return (await state.options.store.listAnnouncements([slug])).some((announcement) => announcement.key === key)
}

/** When this phase's announcement of this launch went (at any start time it had then), or undefined. */
async function phaseSentAt(state: PhaseState, slug: string, phase: string): Promise<string | undefined> {
  const author = phaseAuthor(phase)
  const announcements = await state.options.store.listAnnouncements([slug])
  return announcements.find((announcement) => announcement.launch === slug && announcement.author === author)?.createdAt
}

/** Whether the announcement should be queued now: started, not sent by anyone, not late, and the launch has a reply. */
async function isDue(state: PhaseState, due: PhaseDue, now: Date): Promise<boolean> {
  const { key, slug, phase, startsAt } = due
  if (state.done.has(key)) return false
  const seen = state.firstSeen.get(key) ?? now.getTime()
  state.firstSeen.set(key, seen)
  if (now.getTime() < startsAt) return false
  if (await sentBefore(state, slug, key)) {
    state.done.add(key)
    return false
  }
  // Once per phase and launch: a start moved after the announcement went makes a new key, never a second sending.
  const sentAt = await phaseSentAt(state, slug, phase)
  if (sentAt !== undefined) {
    state.done.add(key)
    state.log.info(
      `Announcement of phase ${phase} of ${slug} not sent at its new start: it already went at ${sentAt}, and moving a phase's start never sends it again (an owner can send it again from the Announcements tab)`,
    )
    return false
  }
  if (seen - startsAt > lateAfterMs) {
    state.done.add(key)
    state.log.info(
      `Announcement of phase ${phase} of ${slug} not sent: the phase started at ${new Date(startsAt).toISOString()}, more than 24 hours before this server read it (send it from the leads page if it is still wanted)`,
    )
    return false
  }
  return true
}

/** Composes the announcement to the launch's recipients and saves it with its messages; true when it was queued. */
async function queuePhaseAnnouncement(state: PhaseState, due: PhaseDue, now: Date): Promise<boolean> {
  const { options, log } = state
  const { key, slug, phase, draft } = due
  const settings = options.mailOf(slug)
  if (!settings) {
    if (!state.warned.has(key))
      log.error(
        `Announcement of phase ${phase} of ${slug} cannot be sent: the launch's page.config.json has no "reply" (its sender and unsubscribe words); tried again at each check`,
      )
    state.warned.add(key)
    return false
  }
  const text = { subject: draft.subject.trim(), text: draft.text.replace(/\r\n?/g, '\n').trim() }
  const recipients = await listRecipients(options.store, slug, now, (email) => options.suppressionKeyOf(email))
  const messages = []
  for (const lead of recipients) {
    const mail = await composeAnnouncement(
      text,
      key,
      { email: String(lead.fields.email), submissionId: lead.submissionId },
      settings,
    )
    if (mail) messages.push({ leadId: lead.id, mail })
  }
  try {
    const saved = await options.store.saveAnnouncement(
      { key, launch: slug, ...text, author: phaseAuthor(phase), createdAt: now.toISOString() },
      messages,
    )
    state.done.add(key)
    // Never undefined here: a phase's announcement is the config's (an owner published it), not held to the daily
    // limit.
    const count = saved?.recipients ?? 0
    log.info(`Announcement of phase ${phase} of ${slug} queued to ${count} registrant${count === 1 ? '' : 's'}`)
    return true
  } catch (error) {
    // The key is unique: another server (or this one before a restart) queued it first, and nothing of this try is
    // kept.
    if (await sentBefore(state, slug, key)) {
      state.done.add(key)
      return false
    }
    throw error
  }
}

/** The phases of one launch that have an announcement and a start, from "current" on. */
function announcedPhases(launch: PhaseLaunch, timeZone: string) {
  if (!launch.phases) return []
  const schedule = phaseScheduleOf(launch.phases, launch.phases.timeZone ?? timeZone)
  // The phases from "current" on: those before it are behind the launch and never start by themselves.
  return launch.phases.list.slice(schedule.currentIndex).flatMap((phase, i) => {
    const startsAt = schedule.startsAt[schedule.currentIndex + i]
    return phase.announcement && startsAt !== undefined ? [{ phase, announcement: phase.announcement, startsAt }] : []
  })
}

/** Queues each phase's announcement once its start has passed; `check` returns how many it queued. */
export function createPhaseAnnouncements(options: PhaseAnnouncementOptions): { check(): Promise<number> } {
  const clock = options.clock ?? (() => new Date())
  const state: PhaseState = {
    options,
    log: options.log ?? {
      info: (m: string) => console.log(m),
      error: (m: string, e?: unknown) => console.error(m, e ?? ''),
    },
    firstSeen: new Map(),
    done: new Set(),
    warned: new Set(),
  }

  async function check(): Promise<number> {
    const now = clock()
    let queued = 0
    for (const launch of options.launches()) {
      for (const { phase, announcement, startsAt } of announcedPhases(launch, options.timeZone)) {
        try {
          const key = await phaseAnnouncementKey(launch.slug, phase.name, startsAt)
          const due = { slug: launch.slug, phase: phase.name, draft: announcement, startsAt, key }
          if ((await isDue(state, due, now)) && (await queuePhaseAnnouncement(state, due, now))) queued += 1
        } catch (error) {
          state.log.error(
            `Announcement of phase ${phase.name} of ${launch.slug} could not be queued (tried again at the next check)`,
            error,
          )
        }
      }
    }
    if (queued > 0) options.onQueued?.()
    return queued
  }

  return { check }
}

/**
 * The server's minute tick: the morning summaries and the phases' announcements, checked together (node.ts). `check`
 * returns how many messages or announcements were queued; checks never overlap.
 */
export function createScheduledMail(
  options: MorningSummaryOptions &
    Omit<PhaseAnnouncementOptions, 'store' | 'launches'> & {
      store: MorningSummaryOptions['store'] & PhaseAnnouncementOptions['store']
      launches: () => Array<SummaryLaunch & PhaseLaunch>
    },
): MorningSummaries {
  const summaries = createMorningSummaries(options)
  const phases = createPhaseAnnouncements(options)
  let timer: ReturnType<typeof setInterval> | undefined
  let running: Promise<number> | undefined
  const check = () =>
    (running ??= Promise.all([summaries.check(), phases.check()])
      .then(([a, b]) => a + b)
      .finally(() => {
        running = undefined
      }))
  return {
    check,
    start(everyMs) {
      timer ??= setInterval(() => void check(), everyMs)
      ;(timer as { unref?: () => void }).unref?.()
      void check()
    },
    stop() {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
    },
  }
}
