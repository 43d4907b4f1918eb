import { isTimeZone, wallClockInstant } from '../../schema/phase-schedule.ts'
import { announcementLimits } from '../../schema/phases.ts'
import { closest, describePath, describeValue, listWords, type Finding } from './describe.ts'
import type { Segment } from './json-source.ts'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/** The parts of the page a phase may change, and what the page must have for the change to land somewhere. */
const changeTargets: Array<{ key: string; has: (data: Json) => boolean; what: string; fix: string }> = [
  {
    key: 'hero',
    has: (data) =>
      Array.isArray(data.sections) && data.sections.some((section) => isObject(section) && section.type === 'hero'),
    what: 'hero section',
    fix: 'Add a section of type "hero" to "sections", or delete "hero" from this phase.',
  },
  {
    key: 'registration',
    has: (data) =>
      Array.isArray(data.sections) &&
      data.sections.some((section) => isObject(section) && section.type === 'registration'),
    what: 'registration section',
    fix: 'Add a section of type "registration" to "sections", or delete "registration" from this phase.',
  },
  {
    key: 'reply',
    has: (data) => isObject(data.reply),
    what: 'reply to registrants ("reply")',
    fix: 'Add a "reply" to the file (the e-mail registrants receive), or delete "reply" from this phase.',
  },
]

/**
 * The phases' checks JSON Schema cannot make: "current" names a phase, names are unique, each change lands on a part
 * the page has (a hero, a registration section, a reply), the sections it hides are sections of the page, start times
 * are real times that follow each other, launch.timeZone is a time zone, and a phase's announcement fits the leads
 * page's limits and can be sent (a reply, a start time). Works on unvalidated data (a wrong shape is the schema's to
 * explain).
 */
export function checkPhases(data: Json): Finding[] {
  const findings: Finding[] = []
  const launch = isObject(data.launch) ? data.launch : {}
  if (typeof launch.timeZone === 'string' && !isTimeZone(launch.timeZone)) {
    findings.push({
      at: ['launch', 'timeZone'],
      message: `launch.timeZone is ${describeValue(launch.timeZone)}, which is not a time zone name.`,
      fix: 'Write a time zone name such as "America/Toronto", "America/Vancouver" or "America/Halifax" (the region, a slash, the largest city).',
    })
  }
  if (!isObject(data.phases) || !Array.isArray(data.phases.list)) return findings
  const phases = data.phases.list.map((phase) => (isObject(phase) ? phase : {}))
  const names = phases.map((phase) => (typeof phase.name === 'string' ? phase.name : undefined))
  const current = data.phases.current
  if (typeof current === 'string' && !names.includes(current)) {
    const meant = closest(
      current,
      names.filter((name): name is string => name !== undefined),
    )
    findings.push({
      at: ['phases', 'current'],
      message: `phases.current is ${describeValue(current)}, but no phase in phases.list has that name${meant ? `; did you mean '${meant}'?` : '.'}`,
      fix: `Write the name of one of the phases: ${listWords(names.filter((name): name is string => name !== undefined))}.`,
    })
  }
  const timeZone =
    typeof launch.timeZone === 'string' && isTimeZone(launch.timeZone) ? launch.timeZone : 'America/Toronto'
  let previous: { at: Segment[]; starts: string; instant: number } | undefined
  phases.forEach((phase, index) => {
    const at: Segment[] = ['phases', 'list', index]
    const name = names[index]
    if (name !== undefined && names.indexOf(name) !== index) {
      findings.push({
        at: [...at, 'name'],
        message: `${describePath([...at, 'name'])} is ${describeValue(name)}, which an earlier phase is named already.`,
        fix: 'Give each phase its own name.',
      })
    }
    for (const target of changeTargets) {
      if (phase[target.key] === undefined || target.has(data)) continue
      findings.push({
        at: [...at, target.key],
        onKey: true,
        message: `${describePath(at)} changes "${target.key}", but the page has no ${target.what}: the change would show nowhere.`,
        fix: target.fix,
      })
    }
    findings.push(...checkHidden(phase, at, data.sections), ...checkLinksToHidden(data, phase, index))
    findings.push(...checkAnnouncement(phase, at, isObject(data.reply)))
    findings.push(...checkWorksheetWindow(phase, at, timeZone))
    if (typeof phase.starts !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(phase.starts)) return
    const instant = wallClockInstant(phase.starts, timeZone)
    if (instant === undefined) {
      findings.push({
        at: [...at, 'starts'],
        message: `${describePath([...at, 'starts'])} is ${describeValue(phase.starts)}, which is not a date and time on the calendar.`,
        fix: 'Write a real date and a time from 00:00 to 23:59, e.g. "2026-03-14T10:00".',
      })
      return
    }
    if (previous && instant <= previous.instant) {
      findings.push({
        at: [...at, 'starts'],
        message: `${describePath([...at, 'starts'])} (${phase.starts}) is not after ${describePath(previous.at)} (${previous.starts}): phases start in the order they are listed.`,
        fix: 'Put the phases in the order they happen, or correct one of the two times.',
      })
    }
    previous = { at: [...at, 'starts'], starts: phase.starts, instant }
  })
  return findings
}

/** A phase's "hide": each name is the anchor of a section of the page, and the phase leaves at least one section. */
function checkHidden(phase: Json, at: Segment[], sections: unknown): Finding[] {
  if (!Array.isArray(phase.hide) || !Array.isArray(sections)) return []
  const anchors = sections.flatMap((s) => (isObject(s) && typeof s.anchor === 'string' ? [s.anchor] : []))
  const findings: Finding[] = []
  const hide: unknown[] = phase.hide
  hide.forEach((name, j) => {
    if (typeof name !== 'string' || anchors.includes(name)) return
    const meant = closest(name, anchors)
    findings.push({
      at: [...at, 'hide', j],
      message: `${describePath([...at, 'hide', j])} is ${describeValue(name)}, but no section has that anchor${meant ? `; did you mean '${meant}'?` : '.'}`,
      fix: `Write the anchor of the section to hide (${listWords(anchors.map((a) => `"${a}"`)) || 'no section has one yet'}), or give that section "anchor": "${name}".`,
    })
  })
  if (sections.length > 0 && anchors.length === sections.length && anchors.every((a) => hide.includes(a))) {
    findings.push({
      at: [...at, 'hide'],
      onKey: true,
      message: `${describePath(at)} hides every section: the page would be empty in this phase.`,
      fix: 'Leave at least one section shown: delete one of the names from "hide".',
    })
  }
  return findings
}

/**
 * Where the phase `index` writes the link at `at` of the page instead (its own hero, registration section, header),
 * if it may: a link the phase changes is the phase's to check.
 */
function phaseVersionOf(data: Json, at: Segment[], index: number): Segment[] | undefined {
  const own: Segment[] = ['phases', 'list', index]
  if (at[0] === 'header') return [...own, ...at]
  const sections = Array.isArray(data.sections) ? data.sections : []
  const type =
    at[0] === 'sections' && typeof at[1] === 'number' ? (sections[at[1]] as Json | undefined)?.type : undefined
  if (
    (type !== 'hero' && type !== 'registration') ||
    sections.findIndex((s) => isObject(s) && s.type === type) !== at[1]
  )
    return undefined
  return [...own, type, ...at.slice(2)]
}

const valueAt = (data: unknown, at: Segment[]): unknown =>
  at.reduce<unknown>((node, step) => (isObject(node) || Array.isArray(node) ? (node as Json)[step] : undefined), data)

/**
 * A link of the page, as phase `index` shows it, to a section the phase hides: the button would lead nowhere. The
 * header's and footer's link lists leave such links out by themselves; links inside a hidden section go with it.
 */
function checkLinksToHidden(data: Json, phase: Json, index: number): Finding[] {
  if (!Array.isArray(phase.hide) || phase.hide.length === 0) return []
  const hidden = new Set(phase.hide.filter((name): name is string => typeof name === 'string'))
  const sections: unknown[] = Array.isArray(data.sections) ? data.sections : []
  const findings: Finding[] = []
  for (const link of listAnchorLinks(data)) {
    const target = link.href.slice(1)
    if (!hidden.has(target)) continue
    const [top, second, third] = link.at
    if ((top === 'header' || top === 'footer') && second === 'links') continue
    if (top === 'phases' && third !== index) continue
    if (top === 'sections' && typeof second === 'number') {
      const section = sections[second]
      if (isObject(section) && typeof section.anchor === 'string' && hidden.has(section.anchor)) continue
      const own = phaseVersionOf(data, link.at, index)
      if (own && valueAt(data, own) !== undefined) continue
    } else if (top === 'header' && valueAt(data, phaseVersionOf(data, link.at, index)!) !== undefined) continue
    findings.push({
      at: link.at,
      message: `${describePath(link.at)} links to '${link.href}', which ${describePath(['phases', 'list', index])} hides: in that phase the link would lead nowhere.`,
      fix: `Give the phase its own link here (another section's anchor), or do not hide "${target}" in it.`,
    })
  }
  return findings
}

/**
 * A phase's announcement: a subject and a text that are not empty, within the leads page's limits, with no invisible
 * or control characters (as the leads page's form refuses them), on a phase that starts by itself in a file with a
 * reply.
 */
function checkAnnouncement(phase: Json, at: Segment[], hasReply: boolean): Finding[] {
  if (!isObject(phase.announcement)) return []
  const findings: Finding[] = []
  const here: Segment[] = [...at, 'announcement']
  const parts = [
    { key: 'subject', words: 'subject', limit: announcementLimits.subject, control: /[\p{Cc}\p{Cf}]/u },
    { key: 'text', words: 'message', limit: announcementLimits.text, control: /[\p{Cf}]|[^\P{Cc}\n\t]/u },
  ]
  for (const part of parts) {
    const value = phase.announcement[part.key]
    if (typeof value !== 'string') continue
    const where = describePath([...here, part.key])
    const trimmed = value.replace(/\r\n?/g, '\n').trim()
    if (trimmed === '') {
      findings.push({
        at: [...here, part.key],
        message: `${where} is empty: the announcement would go out without a ${part.words}.`,
        fix: `Write the ${part.words}, or delete "announcement" from this phase.`,
      })
    } else if (trimmed.length > part.limit) {
      findings.push({
        at: [...here, part.key],
        message: `${where} has ${trimmed.length} characters, and an announcement's ${part.words} can have at most ${part.limit} (as on the leads page).`,
        fix: `Shorten it to ${part.limit} characters or fewer.`,
      })
    } else if (part.control.test(trimmed)) {
      findings.push({
        at: [...here, part.key],
        message: `${where} has invisible or control characters.`,
        fix: 'Remove them: write the words as plain text.',
      })
    }
  }
  if (!hasReply) {
    findings.push({
      at: here,
      onKey: true,
      message: `${describePath(at)} has an announcement, but the file has no "reply": an announcement is sent with the reply's sender, contact and unsubscribe words.`,
      fix: 'Add a "reply" to the file (the e-mail registrants receive), or delete "announcement" from this phase.',
    })
  }
  if (phase.starts === undefined) {
    findings.push({
      at: here,
      onKey: true,
      message: `${describePath(at)} has an announcement but no "starts": an announcement is sent when its phase starts by itself, so this one would never go.`,
      fix: 'Give the phase a start time ("starts"), or delete "announcement" and send it from the leads page\'s Announcements when you change "current".',
    })
  }
  return findings
}

/** Every "href" in the config that points at a section of this page ("#anchor"). */
export function listAnchorLinks(data: unknown): { at: Segment[]; href: string }[] {
  const found: { at: Segment[]; href: string }[] = []
  const visit = (value: unknown, at: Segment[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => visit(item, [...at, i]))
    else if (isObject(value)) {
      // The form's own schema and layout are not page links.
      if (at.length === 1 && at[0] === 'form') return
      if (typeof value.href === 'string' && value.href.startsWith('#'))
        found.push({ at: [...at, 'href'], href: value.href })
      for (const [key, child] of Object.entries(value)) visit(child, [...at, key])
    }
  }
  visit(data, [])
  return found
}

const wallClockText = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/

/**
 * A phase's worksheet window: "opens" and "closes" are real dates and times (the schema checks their shape), and it
 * closes after it opens.
 */
function checkWorksheetWindow(phase: Json, at: Segment[], timeZone: string): Finding[] {
  if (!isObject(phase.worksheets)) return []
  const here: Segment[] = [...at, 'worksheets']
  const findings: Finding[] = []
  const instants: Record<string, number | undefined> = {}
  for (const key of ['opens', 'closes']) {
    const value = phase.worksheets[key]
    if (typeof value !== 'string' || !wallClockText.test(value)) continue
    instants[key] = wallClockInstant(value, timeZone)
    if (instants[key] !== undefined) continue
    findings.push({
      at: [...here, key],
      message: `${describePath([...here, key])} is ${describeValue(value)}, which is not a date and time on the calendar.`,
      fix: 'Write a real date and a time from 00:00 to 23:59, e.g. "2026-03-14T10:00".',
    })
  }
  const { opens, closes } = instants
  if (opens !== undefined && closes !== undefined && closes <= opens) {
    findings.push({
      at: [...here, 'closes'],
      message: `${describePath([...here, 'closes'])} (${String(phase.worksheets.closes)}) is not after ${describePath([...here, 'opens'])} (${String(phase.worksheets.opens)}): worksheets would never be open.`,
      fix: 'Make "closes" later than "opens", or leave "closes" out to keep worksheets open.',
    })
  }
  return findings
}
