import { describe, expect, it } from 'vitest'
import { applyPhase } from '../../schema/phase-apply.ts'
import { phaseAt, phaseScheduleOf, wallClockInstant } from '../../schema/phase-schedule.ts'
import { checkPageConfigFile, type Problem } from '../../src/config/check-page-config.ts'
import { loadPageConfig } from '../../src/config/load-page-config.ts'
import { copySecondLaunch, positionOf, replaceOnce } from '../fixtures/second-launch.ts'

/** The second launch with a "phases" block added at its end. */
function withPhases(phases: string, edit: (text: string) => string = (t) => t) {
  const { file, text } = copySecondLaunch((t) =>
    edit(
      replaceOnce(
        t,
        '    "email": "privacy@example.org"\n  }\n}',
        `    "email": "privacy@example.org"\n  },\n  "phases": ${phases}\n}`,
      ),
    ),
  )
  return { ...checkPageConfigFile(file), text, file }
}

const messages = (problems: Problem[]) => problems.map((problem) => `${problem.line}: ${problem.message}`)

describe('the checker on phases', () => {
  it('accepts phases that change the hero, the registration section, the dialog and the form', () => {
    const { problems } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip" },
      { "name": "public", "starts": "2026-05-02T10:00", "hero": { "eyebrow": "Now Open", "cta": { "label": "Book a Tour" } },
        "registration": { "heading": "Book a Tour" }, "modal": { "opensByItself": false }, "form": { "submitLabel": "Book" } }
    ]
  }`)
    expect(problems).toEqual([])
  })

  it('refuses a change naming a field the hero does not have, with file and line', () => {
    const { problems, text, file } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip" },
      { "name": "public", "hero": { "subtitle": "Now open" } }
    ]
  }`)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.file).toBe(file)
    expect(problems[0]!.line).toBe(positionOf(text, '"subtitle"').line)
    expect(problems[0]!.message).toBe('phases.list[1].hero has a field "subtitle" that it does not take.')
    expect(problems[0]!.fix).toContain('eyebrow, tagline, intro, cta')
  })

  it('refuses a change to a part the page does not have (a reply, here), with its line', () => {
    const { problems, text } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip" },
      { "name": "sold-out",
        "reply": { "subject": "Waitlist for {site}" } }
    ]
  }`)
    expect(messages(problems)).toEqual([
      `${positionOf(text, '"reply": { "subject"').line}: phases.list[1] changes "reply", but the page has no reply to registrants ("reply"): the change would show nowhere.`,
    ])
  })

  it('refuses a current phase that is not listed, start times out of order and an unknown time zone', () => {
    const { problems, text } = withPhases(
      `{
    "current": "vpi",
    "list": [
      { "name": "vip", "starts": "2026-05-02T10:00" },
      { "name": "public", "starts": "2026-05-01T10:00" },
      { "name": "sold-out", "starts": "2026-02-30T10:00" }
    ]
  }`,
      (t) =>
        replaceOnce(
          t,
          '"slug": "willowmere-commons"',
          '"slug": "willowmere-commons", "timeZone": "America/Kestrel_Falls"',
        ),
    )
    expect(messages(problems).sort()).toEqual(
      [
        `${positionOf(text, '"timeZone"').line}: launch.timeZone is 'America/Kestrel_Falls', which is not a time zone name.`,
        `${positionOf(text, '"current": "vpi"').line}: phases.current is 'vpi', but no phase in phases.list has that name; did you mean 'vip'?`,
        `${positionOf(text, '"2026-05-01T10:00"').line}: phases.list[1].starts (2026-05-01T10:00) is not after phases.list[0].starts (2026-05-02T10:00): phases start in the order they are listed.`,
        `${positionOf(text, '"2026-02-30T10:00"').line}: phases.list[2].starts is '2026-02-30T10:00', which is not a date and time on the calendar.`,
      ].sort(),
    )
  })
})

describe("the checker on a phase's announcement", () => {
  const reply = JSON.stringify(loadPageConfig('page.config.json').reply)
  const withReply = (t: string) => replaceOnce(t, '  "phases": {', `  "reply": ${reply},\n  "phases": {`)

  it('accepts an announcement on a phase that starts by itself, in a file with a reply', () => {
    const { problems } = withPhases(
      `{
    "current": "vip",
    "list": [
      { "name": "vip" },
      { "name": "public", "starts": "2026-05-02T10:00", "announcement": { "subject": "Public release today", "text": "Pricing is public.\\n\\nSee you at 10." } }
    ]
  }`,
      withReply,
    )
    expect(problems).toEqual([])
  })

  it("refuses an empty subject and a message over the leads page's limit, with file and line", () => {
    const { problems, text, file } = withPhases(
      `{
    "current": "vip",
    "list": [
      { "name": "vip" },
      { "name": "public", "starts": "2026-05-02T10:00", "announcement": {
        "subject": "  ",
        "text": "${'x'.repeat(2001)}" } }
    ]
  }`,
      withReply,
    )
    expect(problems.every((problem) => problem.file === file)).toBe(true)
    expect(messages(problems)).toEqual([
      `${positionOf(text, '"subject": "  "').line}: phases.list[1].announcement.subject is empty: the announcement would go out without a subject.`,
      `${positionOf(text, '"text": "xxx').line}: phases.list[1].announcement.text has 2001 characters, and an announcement's message can have at most 2000 (as on the leads page).`,
    ])
  })

  it('refuses an announcement that could never go: no start time, no reply', () => {
    const { problems, text } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip" },
      { "name": "public", "announcement": { "subject": "Public release today", "text": "Pricing is public." } }
    ]
  }`)
    const line = positionOf(text, '"announcement"').line
    expect(messages(problems)).toEqual([
      `${line}: phases.list[1] has an announcement, but the file has no "reply": an announcement is sent with the reply's sender, contact and unsubscribe words.`,
      `${line}: phases.list[1] has an announcement but no "starts": an announcement is sent when its phase starts by itself, so this one would never go.`,
    ])
  })
})

describe('the checker on sections hidden in a phase', () => {
  it('accepts anchors of sections of the page', () => {
    const { problems } = withPhases(`{ "current": "vip", "list": [{ "name": "vip", "hide": ["homes", "builder"] }] }`)
    expect(problems).toEqual([])
  })

  it('refuses a name that is no section, with file, line and the anchors to choose from', () => {
    const { problems, text, file } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip",
        "hide": ["homes", "hoems"] }
    ]
  }`)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.file).toBe(file)
    expect(problems[0]!.line).toBe(positionOf(text, '"hoems"').line)
    expect(problems[0]!.message).toBe(
      "phases.list[0].hide[1] is 'hoems', but no section has that anchor; did you mean 'homes'?",
    )
    expect(problems[0]!.fix).toContain('"welcome", "homes"')
    expect(problems[0]!.fix).toContain('or give that section "anchor": "hoems"')
  })

  it('refuses a button of the page that links to a section the phase hides, unless the phase gives it its own link', () => {
    const { problems, text } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip", "hide": ["register"] },
      { "name": "public", "hide": ["register"], "hero": { "cta": { "href": "#homes" } } }
    ]
  }`)
    // The second launch's hero button links to #register: wrong in "vip", given its own link by "public".
    const hero = problems.filter((problem) => problem.message.startsWith("sections[0].cta.href links to '#register'"))
    expect(hero).toHaveLength(1)
    expect(hero[0]!.message).toContain('which phases.list[0] hides: in that phase the link would lead nowhere.')
    expect(hero[0]!.line).toBe(positionOf(text, '"Join the Priority List", "href": "#register"').line)
    expect(hero[0]!.fix).toContain('Give the phase its own link here')
    // The header's link list leaves such links out by itself: only its button is named.
    expect(problems.every((problem) => !problem.message.startsWith('header.links'))).toBe(true)
  })
})

describe('a phase applied to a config', () => {
  const config = loadPageConfig('page.config.json')

  it('lays its changes over the shared config, keeping everything it does not name', () => {
    const soldOut = applyPhase(config, 'sold-out')
    const hero = soldOut.sections.find((section) => section.type === 'hero')!
    const shared = config.sections.find((section) => section.type === 'hero')!
    expect(hero.eyebrow).toBe('Phase 1 Sold Out · Kestrel Falls, Ontario')
    expect(hero.type === 'hero' && hero.cta).toEqual({
      label: 'Join the Phase 2 Waitlist',
      href: '#register',
      opensModal: true,
    })
    expect(hero.heading).toBe(shared.heading)
    expect(soldOut.form.submitLabel).toBe('Join the Waitlist')
    expect(soldOut.form.toasts.error).toEqual(config.form.toasts.error)
    expect(soldOut.modal).toEqual({ ...config.modal, opensByItself: false, title: 'Join the Phase 2 Waitlist' })
    expect(soldOut.banner).toBe('Phase 1 is sold out. Join the waitlist for Phase 2.')
    expect(soldOut.reply?.paragraphs[0]).toContain('waitlist for Phase 2')
    expect(soldOut.reply?.sender).toEqual(config.reply?.sender)
    expect('phases' in soldOut).toBe(false)
  })

  it('leaves out the sections it hides, with their header and footer links, in that phase only', () => {
    const hiding = {
      ...config,
      header: { ...config.header, links: [...config.header.links, { label: 'Homes', href: '#homes' }] },
      footer: {
        ...config.footer,
        links: [
          { label: 'Homes', href: '#homes' },
          { label: 'Call', href: '#contact' },
        ],
      },
      phases: {
        ...config.phases!,
        list: config.phases!.list.map((p) => (p.name === 'public' ? { ...p, hide: ['homes', 'location'] } : p)),
      },
    }
    const anchors = (name: string, options?: Parameters<typeof applyPhase>[2]) =>
      applyPhase(hiding, name, options).sections.map((section) => section.anchor)
    const all = config.sections.map((section) => section.anchor)
    expect(all).toContain('homes')
    expect(anchors('public')).toEqual(all.filter((anchor) => anchor !== 'homes' && anchor !== 'location'))
    expect(anchors('vip')).toEqual(all)
    expect(anchors('public', { hidden: 'keep' })).toEqual(all)
    const shown = applyPhase(hiding, 'public')
    expect(shown.header.links.map((link) => link.href)).not.toContain('#homes')
    expect(shown.header.links).toHaveLength(hiding.header.links.length - 1)
    expect(shown.footer.links).toEqual([{ label: 'Call', href: '#contact' }])
    expect(applyPhase(hiding, 'vip').header.links).toEqual(hiding.header.links)
  })

  it('leaves the shared config as it is for a phase that changes nothing', () => {
    const { phases: _phases, ...shared } = config
    expect(applyPhase(config, 'vip')).toEqual(shared)
  })
})

describe('the phase in force', () => {
  const schedule = phaseScheduleOf(
    {
      current: 'vip',
      list: [
        { name: 'coming-soon' },
        { name: 'vip' },
        { name: 'public', starts: '2026-03-08T02:30' },
        { name: 'sold-out' },
      ],
    },
    'America/Toronto',
  )

  it("is the current phase until a later phase starts, to the millisecond, in the launch's time zone", () => {
    // 02:30 does not exist in Toronto on 8 March 2026 (clocks go from 02:00 to 03:00): it counts as 03:30 EDT.
    const start = Date.parse('2026-03-08T07:30:00.000Z')
    expect(schedule.startsAt[2]).toBe(start)
    expect(phaseAt(schedule, start - 1)).toBe('vip')
    expect(phaseAt(schedule, start)).toBe('public')
    expect(wallClockInstant('2026-07-01T10:00', 'America/Toronto')).toBe(Date.parse('2026-07-01T14:00:00.000Z'))
    expect(wallClockInstant('2026-01-15T10:00', 'America/Vancouver')).toBe(Date.parse('2026-01-15T18:00:00.000Z'))
    // A time met twice (clocks go back at 02:00 on 1 November 2026) is the first.
    expect(wallClockInstant('2026-11-01T01:30', 'America/Toronto')).toBe(Date.parse('2026-11-01T05:30:00.000Z'))
  })
})
