import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPageConfigFile } from '../../src/config/check-page-config.ts'
import { copySecondLaunch, positionOf, replaceOnce } from '../fixtures/second-launch.ts'

const consentLine =
  '"consent": "By signing up, you agree that Lakeside Realty Group may contact you about Willowmere Commons.",'
const postalField = '"postalCode": { "type": "string", "pattern": "^[A-Za-z][0-9][A-Za-z] ?[0-9][A-Za-z][0-9]$" }'
const naming = (field: string) => (t: string) =>
  replaceOnce(t, consentLine, `${consentLine}\n    "expressConsentField": "${field}",`)
const withBox = (box: string) => (t: string) =>
  replaceOnce(naming('updates')(t), postalField, `${postalField},\n        "updates": ${box}`)

describe('form.expressConsentField (the checker)', () => {
  it('accepts an optional boolean field, unticked', () => {
    expect(
      checkPageConfigFile(copySecondLaunch(withBox('{ "type": "boolean", "title": "Send me updates" }')).file).problems,
    ).toEqual([])
    expect(
      checkPageConfigFile(copySecondLaunch(withBox('{ "type": "boolean", "default": false }')).file).problems,
    ).toEqual([])
  })

  it('refuses a name the form schema lacks, with file and line', () => {
    const { file, text } = copySecondLaunch(naming('newsletter'))
    const { problems } = checkPageConfigFile(file)
    expect(problems).toHaveLength(1)
    expect([path.resolve(problems[0]!.file), problems[0]!.line]).toEqual([
      file,
      positionOf(text, '"expressConsentField"').line,
    ])
    expect(problems[0]!.message).toBe(
      "form.expressConsentField names 'newsletter', but form.schema.properties has no such field, so no visitor could ever give express consent.",
    )
  })

  it('refuses a box ticked in advance, at its default', () => {
    const { file, text } = copySecondLaunch(withBox('{ "type": "boolean",\n          "default": true }'))
    const { problems } = checkPageConfigFile(file)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.line).toBe(positionOf(text, '"default": true').line)
    expect(problems[0]!.message).toContain('is ticked in advance ("default": true)')
  })

  it('refuses a field that is not a yes/no box', () => {
    const { problems } = checkPageConfigFile(copySecondLaunch(naming('postalCode')).file)
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('which is not a yes/no field')])
  })
})
