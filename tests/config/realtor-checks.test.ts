import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPageConfigText } from '../../src/config/check-page-config.ts'
import { positionOf, replaceOnce } from '../fixtures/second-launch.ts'

const file = path.resolve('page.config.json')
const original = readFileSync(file, 'utf8')
const check = (text: string) => checkPageConfigText(text, file, path.resolve('public'))

describe('the checker on the realtors\' path', () => {
  it('accepts the default launch: the co-op desk, the realtor fields under a condition and the realtors\' reply', () => {
    expect(check(original)).toEqual([])
  })

  it('refuses the co-op desk and the realtors\' reply when the form cannot tell a realtor, with file and line', () => {
    const text = replaceOnce(original, '"isRealtor": { "type": "string", "enum": ["yes", "no"] }', '"isRealtor": { "type": "string", "enum": ["agent", "buyer"] }')
    const problems = check(text)
    expect(problems.map((p) => [p.file, p.line, p.where])).toEqual([
      [file, positionOf(text, '"realtorEmail"').line, 'launch.realtorEmail'],
      [file, positionOf(text, '"realtor": {').line, 'reply.realtor'],
    ])
    expect(problems[0]!.message).toContain('no "isRealtor" field with the answer "yes"')
  })

  it('refuses a realtors\' reply that would copy what the visitor typed (their brokerage), with its line', () => {
    const text = replaceOnce(original, '"Your broker package for {site}"', '"Your broker package, {brokerage}"')
    const problems = check(text)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.line).toBe(positionOf(text, '{brokerage}').line)
    expect(problems[0]!.message).toContain('would copy what a visitor typed')
  })

  it('refuses a co-op desk address that is not one, with its line', () => {
    const text = replaceOnce(original, '"realtorEmail": "coop@example.com"', '"realtorEmail": "the co-op desk"')
    const problems = check(text)
    expect(problems.map((p) => [p.line, p.where])).toEqual([[positionOf(text, '"the co-op desk"').line, 'launch.realtorEmail']])
  })
})
