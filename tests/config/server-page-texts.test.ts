import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPageConfigText } from '../../src/config/check-page-config.ts'
import { positionOf, replaceOnce } from '../fixtures/second-launch.ts'

// Issue 47, item 8: the words of the server's own pages (the form page's notes, the fresh-link page, "not published
// yet") live in the config, checked like every other text.
const file = path.resolve('page.config.json')
const original = readFileSync(file, 'utf8')
const check = (text: string) => checkPageConfigText(text, file, path.resolve('public'))

const edits = {
  form: ['"noScript": {', '"noScript": { "tooManyText": "Slow down, friend.", "failedText": "Oops.",'],
  documents: ['"linkDays": 30,', '"linkDays": 30, "texts": { "tooManyText": "Easy there.", "failedText": "Nope." },'],
  site: ['  "site": {', '  "site": { "unpublished": { "title": "{site} – soon", "text": "Coming soon." },'],
} as const

describe("the server pages' texts in the config", () => {
  it('accepts each new text where it belongs', () => {
    let text = original
    for (const [from, to] of Object.values(edits)) text = replaceOnce(text, from, to)
    expect(check(text)).toEqual([])
  })

  it.each([
    ['form.noScript', '"noScript": {', '"noScript": { "tooManyTxt": "Slow down.",', '"tooManyTxt"'],
    ['documents.texts', '"linkDays": 30,', '"linkDays": 30, "texts": { "failText": "Nope." },', '"failText"'],
    ['site.unpublished', '  "site": {', '  "site": { "unpublished": { "titel": "Soon" },', '"titel"'],
  ])('refuses an unknown key in %s with the file and its line', (where, from, to, key) => {
    const text = replaceOnce(original, from, to)
    const problems = check(text)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.file).toBe(file)
    expect(problems[0]!.line).toBe(positionOf(text, key).line)
    expect(problems[0]!.message).toContain(where)
    expect(problems[0]!.message).toContain(key.slice(1, -1))
  })

  it('refuses an empty text and a branch heading not written as field=answer', () => {
    const empty = check(replaceOnce(original, '"noScript": {', '"noScript": { "answerBackLabel": "",'))
    expect(empty.map((p) => p.where)).toEqual(['form.noScript.answerBackLabel'])
    const heading = check(replaceOnce(original, '"isRealtor=yes"', '"isRealtor"'))
    expect(heading).toHaveLength(1)
    expect(heading[0]!.where).toMatch(/^form\.noScript\.branchHeadings/)
  })

  it('refuses a branch heading for an answer the form never asks about, at its line', () => {
    const text = replaceOnce(original, '"isRealtor=yes"', '"isRealtor=maybe"')
    const problems = check(text)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.line).toBe(positionOf(text, '"isRealtor=maybe"').line)
    expect(problems[0]!.message).toContain('"isRealtor=maybe"')
    expect(problems[0]!.fix).toContain('"isRealtor=yes"')
  })
})
