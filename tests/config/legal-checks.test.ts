import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkPageConfigFile } from '../../src/config/check-page-config.ts'
import { checkPrivacy } from '../../src/config/legal-checks.ts'
import { copySecondLaunch, positionOf, replaceOnce, secondLaunchConfig } from '../fixtures/second-launch.ts'

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')

function migrate(args: string[]): { code: number | null; out: string } {
  const { PAGE_CONFIG: _ignored, ...inherited } = process.env
  const result = spawnSync(tsx, [path.join(root, 'src/cli/migrate.ts'), ...args], {
    cwd: root,
    env: inherited,
    encoding: 'utf8',
  })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

const unregistered = '"brokerage": "Lakeside Realty Group Inc.",'
const withoutBrokerageWord = (text: string) =>
  replaceOnce(text, '"brokerage": "Lakeside Realty Group Inc., Brokerage",', unregistered)
const withoutPrivacy = (text: string) =>
  replaceOnce(text, /,\n {2}"privacy": \{[^]*?\n {2}\}\n\}/.exec(text)?.[0] ?? '-', '\n}')

describe('what the law asks of every launch (the checker)', () => {
  it('refuses a brokerage name without the word "Brokerage", with file, line and what to write', () => {
    const { file, text } = copySecondLaunch(withoutBrokerageWord)
    const { problems, config } = checkPageConfigFile(file)
    expect(config).toBeUndefined()
    expect(problems).toHaveLength(1)
    const [problem] = problems
    const at = positionOf(text, unregistered)
    expect([problem!.file, problem!.line]).toEqual([file, at.line])
    expect(problem!.where).toBe('site.brokerage')
    expect(problem!.message).toBe(
      `site.brokerage 'Lakeside Realty Group Inc.' is not a registered brokerage name: it does not contain the word "Brokerage". Ontario's TRESA and RECO's advertising rules ask for the brokerage's registered name on every page and e-mail.`,
    )
    expect(problem!.fix).toContain(
      'Write the name exactly as RECO registered it, with the word "Brokerage", such as "Northgate Realty Inc., Brokerage"',
    )
  })

  it('accepts the word in any case, and refuses a config without a brokerage at all', () => {
    expect(
      checkPageConfigFile(copySecondLaunch((t) => replaceOnce(t, ', Brokerage",', ', BROKERAGE",')).file).problems,
    ).toEqual([])
    const { problems } = checkPageConfigFile(
      copySecondLaunch((t) => replaceOnce(t, '    "brokerage": "Lakeside Realty Group Inc., Brokerage",\n', '')).file,
    )
    expect(problems.map((p) => p.message)).toEqual([expect.stringContaining('"brokerage"')])
  })

  it('refuses a launch whose form collects personal data without a privacy block, at the form, naming the fields', () => {
    const { file, text } = copySecondLaunch(withoutPrivacy)
    const { problems } = checkPageConfigFile(file)
    expect(problems).toHaveLength(1)
    expect(problems[0]!.line).toBe(positionOf(text, '"form": {').line)
    expect(problems[0]!.message).toBe(
      'The form collects personal data (Your name, Phone number, E-mail address and Postal code (optional)), but the config has no "privacy" block, so the launch would have no privacy page to link beside the form, in the footer and in the reply.',
    )
    expect(problems[0]!.fix).toMatch(/^Add a "privacy" block after "form"/)
  })

  it('asks no privacy block of a form that collects nothing personal', () => {
    const form = {
      schema: { type: 'object', properties: { interest: { type: 'string', enum: ['towns', 'singles'] } } },
      uiSchema: {},
    }
    expect(checkPrivacy({ form })).toEqual([])
    expect(
      checkPrivacy({ form: { ...form, schema: { properties: { contact: { type: 'string', format: 'email' } } } } }),
    ).toHaveLength(1)
  })
})

describe('npm run migrate and the brokerage name', () => {
  it('cannot invent a registered name: says where and what to write, and exits 1', () => {
    const { file, text } = copySecondLaunch(withoutBrokerageWord)
    const { code, out } = migrate([file])
    expect(code).toBe(1)
    expect(out).toContain(`${file}:${positionOf(text, unregistered).line}:`)
    expect(out).toContain('does not contain the word "Brokerage"')
    expect(out).toContain('migrate cannot know the registered name: write it, then run npm run migrate again.')
    expect(readFileSync(file, 'utf8')).toBe(text)
  })

  it("passes the repository's own configs", () => {
    for (const file of ['page.config.json', secondLaunchConfig]) {
      const { code, out } = migrate([file, '--check'])
      expect(out).toMatch(/is current/)
      expect(code).toBe(0)
    }
  })
})
