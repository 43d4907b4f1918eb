import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPageConfigText } from '../../src/config/check-page-config.ts'
import { positionOf, replaceOnce } from '../fixtures/second-launch.ts'

const file = path.resolve('page.config.json')
const original = readFileSync(file, 'utf8')
const check = (text: string) => checkPageConfigText(text, file, path.resolve('public'))

describe("the checker on the realtors' path", () => {
  it("accepts the default launch: the co-op desk, the realtor fields under a condition and the realtors' reply", () => {
    expect(check(original)).toEqual([])
  })

  it("refuses the co-op desk and the realtors' reply when the form cannot tell a realtor, with file and line", () => {
    const text = replaceOnce(
      original,
      '"isRealtor": { "type": "string", "enum": ["yes", "no"] }',
      '"isRealtor": { "type": "string", "enum": ["agent", "buyer"] }',
    )
    const problems = check(text)
    expect(problems.map((p) => [p.file, p.line, p.where])).toEqual([
      [file, positionOf(text, '"realtorEmail"').line, 'launch.realtorEmail'],
      [file, positionOf(text, '"realtor": {').line, 'reply.realtor'],
    ])
    expect(problems[0]!.message).toContain('no "isRealtor" field with the answer "yes"')
  })

  it("refuses a realtors' reply that would copy what the visitor typed (their brokerage), with its line", () => {
    const text = replaceOnce(original, '"Your broker package for {site}"', '"Your broker package, {brokerage}"')
    const problems = check(text)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.line).toBe(positionOf(text, '{brokerage}').line)
    expect(problems[0]!.message).toContain('would copy what a visitor typed')
  })

  it('refuses a co-op desk address that is not one, with its line', () => {
    const text = replaceOnce(original, '"realtorEmail": "coop@example.com"', '"realtorEmail": "the co-op desk"')
    const problems = check(text)
    expect(problems.map((p) => [p.line, p.where])).toEqual([
      [positionOf(text, '"the co-op desk"').line, 'launch.realtorEmail'],
    ])
  })
})

describe("the checker on a launch's roster of salespeople and its morning summary", () => {
  const roster = (people: string) =>
    replaceOnce(
      original,
      '"realtorEmail": "coop@example.com"',
      `"realtorEmail": "coop@example.com",\n    "roster": [\n${people}\n    ]`,
    )

  it('accepts a roster of named salespeople with their addresses, and a morning summary', () => {
    const text = roster(
      '      { "name": "Alex Martin", "email": "alex@example.com" },\n      { "name": "Sam Chen", "email": "sam@example.com" }',
    ).replace('"roster": [', '"morningSummary": { "to": "manager@example.com", "at": "07:30" },\n    "roster": [')
    expect(check(text)).toEqual([])
  })

  it('refuses a salesperson without a name, an address that is not one and one named twice, each with file and line', () => {
    const text = roster(
      [
        '      { "name": "Alex Martin", "email": "alex@example.com" },',
        '      { "name": "  ", "email": "nameless@example.com" },',
        '      { "name": "Sam Chen", "email": "sam at example" },',
        '      { "name": "Alex again", "email": "Alex@example.com" }',
      ].join('\n'),
    )
    const problems = check(text)
    expect(problems.map((p) => [p.file, p.line, p.where])).toEqual([
      [file, positionOf(text, '"  "').line, 'launch.roster[1].name'],
      [file, positionOf(text, '"sam at example"').line, 'launch.roster[2].email'],
      [file, positionOf(text, '"Alex@example.com"').line, 'launch.roster[3].email'],
    ])
    expect(problems[0]!.fix).toContain('not empty')
    expect(problems[1]!.message).toContain('is not a valid e-mail address')
    expect(problems[2]!.message).toContain('alex@example.com twice')
  })

  it('refuses a morning summary time that is not HH:MM, with its line', () => {
    const text = replaceOnce(
      original,
      '"realtorEmail": "coop@example.com"',
      '"realtorEmail": "coop@example.com", "morningSummary": { "at": "7:30am" }',
    )
    expect(check(text).map((p) => [p.line, p.where])).toEqual([
      [positionOf(text, '"7:30am"').line, 'launch.morningSummary.at'],
    ])
  })
})
