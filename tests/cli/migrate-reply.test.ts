import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { checkPageConfigFile } from '../../src/config/check-page-config.ts'
import { rewriteReplyPlaceholders } from '../../src/config/reply-placeholders-fix.ts'
import { replaceOnce } from '../fixtures/second-launch.ts'

// Issue 21, item 2: the reply goes to whatever address was typed, so the checker refuses a {placeholder} that copies
// a visitor's free text; npm run migrate rewrites the configs written before that rule.

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
const script = path.join(root, 'src/cli/migrate.ts')
const current = readFileSync(path.join(root, 'page.config.json'), 'utf8')

const edits = (text: string) =>
  [
    (t: string) =>
      replaceOnce(
        t,
        '"name": { "type": "string", "maxLength": 100 },',
        '"name": { "type": "string", "maxLength": 100 },\n        "fullName": { "type": "string", "maxLength": 100 },\n        "mobile": { "type": "string", "maxLength": 20 },',
      ),
    (t: string) =>
      replaceOnce(
        t,
        '"ui:order": ["name", "email", "phone", "isRealtor", "*", "updates"]',
        '"ui:order": ["name", "email", "phone", "isRealtor", "fullName", "mobile", "*", "updates"]',
      ),
    (t: string) => replaceOnce(t, '"greeting": "Hi {name},"', '"greeting": "Hi {fullName},"'),
    (t: string) =>
      replaceOnce(
        t,
        'public. A member of our sales team will call you at {phone} within',
        'public. A member of our sales team will call you at {mobile} within',
      ),
    (t: string) =>
      replaceOnce(
        t,
        'VIP access to Bramblewood Crossing, Larkspur Homes\' new community at Heritage Road & Concession 6 in Kestrel Falls."',
        'VIP access to Bramblewood Crossing, Larkspur Homes\' new community at Heritage Road & Concession 6 in Kestrel Falls. We will write to {email} with news."',
      ),
  ].reduce((t, edit) => edit(t), text)

/** The root config as written before issue 21: the reply names the visitor's full name, mobile and e-mail address. */
const before = edits(current)
/** The same, as migrate must leave it: every other byte as written. */
const after = replaceOnce(
  replaceOnce(
    replaceOnce(before, '"Hi {fullName},"', '"Hi {name},"'),
    'public. A member of our sales team will call you at {mobile} within',
    'public. A member of our sales team will call you at {phone} within',
  ),
  'Kestrel Falls. We will write to {email} with news."',
  'Kestrel Falls. We will write to with news."',
)
const lineOf = (text: string, needle: string) => text.slice(0, text.indexOf(needle)).split('\n').length

function migrate(cwd: string, args: string[] = []): { code: number | null; out: string } {
  const { PAGE_CONFIG: _ignored, ...inherited } = process.env
  const result = spawnSync(tsx, [script, ...args], { cwd, env: inherited, encoding: 'utf8' })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

describe('npm run migrate: reply placeholders that copy what a visitor typed', () => {
  let project: string
  beforeEach(() => {
    project = mkdtempSync(path.join(tmpdir(), 'migrate-reply-'))
    cpSync(path.join(root, 'public'), path.join(project, 'public'), { recursive: true })
    cpSync(path.join(root, 'documents'), path.join(project, 'documents'), { recursive: true })
    writeFileSync(path.join(project, 'page.config.json'), before)
  })
  const read = () => readFileSync(path.join(project, 'page.config.json'), 'utf8')

  it('is what the checker refuses before, and passes it after', () => {
    const problems = checkPageConfigFile(path.join(project, 'page.config.json')).problems.map((p) => p.message)
    expect(problems).toHaveLength(3)
    for (const field of ['fullName', 'mobile', 'email'])
      expect(problems.join('\n')).toContain(`has the placeholder {${field}}, which would copy what a visitor typed`)
    expect(migrate(project).code).toBe(0)
    expect(checkPageConfigFile(path.join(project, 'page.config.json')).problems).toEqual([])
  })

  it('rewrites them to {name} and {phone} or removes them, says so with file and line, and keeps every other byte', () => {
    const { code, out } = migrate(project)
    expect(code).toBe(0)
    expect(read()).toBe(after)
    expect(out).toBe(
      [
        '✓ page.config.json: the reply no longer copies what a visitor typed (anyone could have made the site send their text to any address); reread these:',
        `    page.config.json:${lineOf(after, '"greeting"')}: reply.greeting: {fullName} became {name}; it now reads "Hi {name},"`,
        `    page.config.json:${lineOf(after, '"Thank you for registering')}: reply.paragraphs[0]: removed {email}; it now reads "…on 6 in Kestrel Falls. We will write to with news."`,
        `    page.config.json:${lineOf(after, 'call you at {phone}')}: reply.paragraphs[1]: {mobile} became {phone}; it now reads "…ber of our sales team will call you at {phone} within one business day to answer…"`,
        '',
        'Check the result with npm run validate.',
        '',
      ].join('\n'),
    )
  })

  it('is idempotent: a second run says the file is current and changes nothing', () => {
    migrate(project)
    const { code, out } = migrate(project)
    expect(code).toBe(0)
    expect(out).toBe('✓ page.config.json is current (config format version 2)\n')
    expect(read()).toBe(after)
  })

  it('with --check, writes nothing and exits 1, naming the lines', () => {
    const { code, out } = migrate(project, ['--check'])
    expect(code).toBe(1)
    expect(out).toBe(
      `✖ page.config.json has a reply that copies what a visitor typed (line ${lineOf(before, '"greeting"')}, line ${lineOf(before, '"Thank you for registering')}, line ${lineOf(before, 'call you at {mobile}')}); npm run migrate -- page.config.json rewrites it.\n`,
    )
    expect(read()).toBe(before)
  })
})

describe('rewriteReplyPlaceholders', () => {
  const config = (reply: string, fields = '"name": {}, "email": {}, "note": {}, "plan": { "enum": ["a", "b"] }') =>
    `{\r\n  "form": { "schema": { "properties": { ${fields} } } },\r\n  "reply": ${reply}\r\n}\r\n`

  it('keeps {site}, {name}, {phone}, list fields and unknown placeholders, and a file without a reply, as they are', () => {
    const text = config('{ "subject": "For {site}", "greeting": "Hi {name} ({plan}) {nmae}" }')
    expect(rewriteReplyPlaceholders(text)).toEqual({ text, changes: [] })
    expect(rewriteReplyPlaceholders('{ "site": {} }').changes).toEqual([])
  })

  it('keeps the escapes and line ends around what it removes, and the byte-order mark', () => {
    const text = `\uFEFF${config('{ "greeting": "Caf\\u00e9 \\"{note}\\"\\t{email}!", "paragraphs": ["one", "Seen: {note} {note}"] }')}`
    const result = rewriteReplyPlaceholders(text)
    expect(result.text).toBe(`\uFEFF${config('{ "greeting": "Caf\\u00e9 \\"\\"!", "paragraphs": ["one", "Seen:"] }')}`)
    expect(result.changes.map((c) => [c.line, c.description])).toEqual([
      [3, 'reply.greeting: removed {note}, removed {email}; it now reads "Café \\"\\"!"'],
      [3, 'reply.paragraphs[1]: removed {note}; it now reads "Seen:"'],
    ])
  })

  it('writes a text back with plain escapes when a placeholder was written with escapes', () => {
    const result = rewriteReplyPlaceholders(config('{ "greeting": "Hi \\u007Bemail\\u007D," }'))
    expect((JSON.parse(result.text) as { reply: { greeting: string } }).reply.greeting).toBe('Hi,')
    expect(result.changes).toHaveLength(1)
  })
})
