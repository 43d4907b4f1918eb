import { describe, expect, it } from 'vitest'
import { hasWorksheetWindow, worksheetStateAt, type WorksheetPhases } from '../../schema/worksheets.ts'
import { wallClockInstant } from '../../schema/phase-schedule.ts'
import { checkPageConfigFile, type Problem } from '../../src/config/check-page-config.ts'
import { copySecondLaunch, positionOf, replaceOnce } from '../fixtures/second-launch.ts'

/** The second launch with a "phases" block (and optionally a "worksheets" block) added at its end. */
function withPhases(phases: string, worksheets?: string) {
  const { file, text } = copySecondLaunch((t) =>
    replaceOnce(
      t,
      '    "email": "privacy@example.org"\n  }\n}',
      `    "email": "privacy@example.org"\n  },\n  "phases": ${phases}${worksheets ? `,\n  "worksheets": ${worksheets}` : ''}\n}`,
    ),
  )
  return { ...checkPageConfigFile(file), text, file }
}

const messages = (problems: Problem[]) => problems.map((problem) => `${problem.line}: ${problem.message}`)

describe("the checker on a phase's worksheets", () => {
  it('accepts a window that opens and closes, one that only opens, and worksheet texts', () => {
    const { problems } = withPhases(
      `{
    "current": "vip",
    "list": [
      { "name": "vip", "worksheets": { "opens": "2026-03-14T10:00", "closes": "2026-03-16T17:00" } },
      { "name": "public", "starts": "2026-05-02T10:00", "worksheets": { "opens": "2026-05-02T10:00" } }
    ]
  }`,
      `{ "texts": { "submit": "Send it", "depositStructure": "5% on signing, 5% in 30 days." } }`,
    )
    expect(problems).toEqual([])
  })

  it('names a date not on the calendar and a close before the opening, with file and line', () => {
    const { problems, text, file } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip", "worksheets": { "opens": "2026-02-30T10:00" } },
      { "name": "public", "starts": "2026-05-02T10:00",
        "worksheets": { "opens": "2026-05-02T10:00",
          "closes": "2026-05-01T17:00" } }
    ]
  }`)
    expect(problems.every((problem) => problem.file === file)).toBe(true)
    expect(messages(problems)).toEqual([
      `${positionOf(text, '"2026-02-30T10:00"').line}: phases.list[0].worksheets.opens is '2026-02-30T10:00', which is not a date and time on the calendar.`,
      `${positionOf(text, '"closes": "2026-05-01T17:00"').line}: phases.list[1].worksheets.closes (2026-05-01T17:00) is not after phases.list[1].worksheets.opens (2026-05-02T10:00): worksheets would never be open.`,
    ])
  })

  it('refuses a window without "opens", a wrongly written time and an unknown field, with their lines', () => {
    const { problems, text } = withPhases(`{
    "current": "vip",
    "list": [
      { "name": "vip", "worksheets": { "closes": "2026-03-16T17:00" } },
      { "name": "public", "worksheets": { "opens": "14 March 2026" } },
      { "name": "sold-out", "worksheets": { "opens": "2026-06-01T10:00", "until": "2026-06-02T10:00" } }
    ]
  }`)
    const lines = problems.map((problem) => problem.line)
    expect(lines).toContain(positionOf(text, '"closes": "2026-03-16T17:00"').line)
    expect(lines).toContain(positionOf(text, '"14 March 2026"').line)
    expect(lines).toContain(positionOf(text, '"until"').line)
    expect(problems).toHaveLength(3)
  })

  it('refuses a worksheet text that is empty', () => {
    const { problems, text } = withPhases(
      `{ "current": "vip", "list": [ { "name": "vip", "worksheets": { "opens": "2026-03-14T10:00" } } ] }`,
      `{ "texts": {
    "submit": "" } }`,
    )
    expect(problems).toHaveLength(1)
    expect(problems[0]!.line).toBe(positionOf(text, '"submit": ""').line)
  })
})

describe('the worksheet window of the phase in force', () => {
  const zone = 'America/Toronto'
  const at = (local: string) => wallClockInstant(local, zone)!
  const phases: WorksheetPhases = {
    current: 'coming-soon',
    list: [
      { name: 'coming-soon' },
      {
        name: 'vip',
        starts: '2026-03-14T09:00',
        worksheets: { opens: '2026-03-14T10:00', closes: '2026-03-16T17:00' },
      },
      { name: 'public', starts: '2026-05-02T10:00', worksheets: { opens: '2026-05-02T10:00' } },
    ],
  }

  it('is closed before, saying when it opens; open inside; closed after until the next phase opens again', () => {
    expect(worksheetStateAt(phases, zone, at('2026-03-01T12:00'))).toEqual({
      open: false,
      opensAt: at('2026-03-14T10:00'),
    })
    expect(worksheetStateAt(phases, zone, at('2026-03-14T09:30'))).toEqual({
      open: false,
      opensAt: at('2026-03-14T10:00'),
    })
    expect(worksheetStateAt(phases, zone, at('2026-03-14T10:00'))).toEqual({
      open: true,
      closesAt: at('2026-03-16T17:00'),
    })
    expect(worksheetStateAt(phases, zone, at('2026-03-16T17:00'))).toEqual({
      open: false,
      opensAt: at('2026-05-02T10:00'),
    })
    expect(worksheetStateAt(phases, zone, at('2026-06-01T10:00'))).toEqual({ open: true })
  })

  it('reads the times in the launch time zone', () => {
    expect(worksheetStateAt({ ...phases, timeZone: 'America/Vancouver' }, zone, at('2026-03-14T12:00'))).toEqual({
      open: false,
      opensAt: wallClockInstant('2026-03-14T10:00', 'America/Vancouver'),
    })
  })

  it('is closed for good with no window ahead, and the reply links it only while a window is open or ahead', () => {
    const once: WorksheetPhases = {
      current: 'vip',
      list: [{ name: 'vip', worksheets: { opens: '2026-03-14T10:00', closes: '2026-03-16T17:00' } }],
    }
    expect(worksheetStateAt(once, zone, at('2026-04-01T10:00'))).toEqual({ open: false })
    expect(hasWorksheetWindow(once, zone, at('2026-03-01T10:00'))).toBe(true)
    expect(hasWorksheetWindow(once, zone, at('2026-03-15T10:00'))).toBe(true)
    expect(hasWorksheetWindow(once, zone, at('2026-04-01T10:00'))).toBe(false)
    expect(hasWorksheetWindow({ current: 'vip', list: [{ name: 'vip' }] }, zone, 0)).toBe(false)
    expect(hasWorksheetWindow(undefined, zone, 0)).toBe(false)
  })
})
