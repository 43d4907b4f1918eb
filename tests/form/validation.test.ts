import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { retrieveSchema, type ErrorSchema, type RJSFSchema } from '@rjsf/utils'
import type { ValidatorFunctions } from '@rjsf/validator-ajv8'
import { beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { createBrowserValidator, type BrowserValidator } from '../../src/form/browser-validator.ts'
import { compileFormValidatorModule } from '../../src/build/compile-form-validator.ts'
import { createRegistrationValidator } from '../../schema/registration-ajv.ts'

const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const serverValidate = createRegistrationValidator(config.form)
let browser: BrowserValidator
let formSchema: RJSFSchema
let generated: string

type GeneratedModule = { validators: ValidatorFunctions; formSchema: RJSFSchema }

/** Loads generated validator code the way a browser would: as an ES module. */
async function loadGenerated(code: string, name: string): Promise<GeneratedModule> {
  const dir = path.resolve('node_modules/.cache/tests')
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `form-validator-${process.pid}-${name}.mjs`)
  writeFileSync(file, code)
  return (await import(pathToFileURL(file).href)) as GeneratedModule
}

beforeAll(async () => {
  // The exact module the build serves to the browser.
  generated = compileFormValidatorModule(config.form)
  const module = await loadGenerated(generated, 'page')
  formSchema = module.formSchema
  browser = createBrowserValidator(module.validators, formSchema, config.form.messages)
})

function browserMessages(data: Record<string, unknown>): Record<string, string> {
  const { errorSchema } = browser.validator.validateFormData(data, formSchema, undefined, browser.transformErrors)
  const out: Record<string, string> = {}
  for (const [field, node] of Object.entries(errorSchema as ErrorSchema<Record<string, unknown>>)) {
    const errors = node?.__errors
    if (field !== '__errors' && errors?.length) {
      expect(errors).toHaveLength(1) // one message per field at a time
      out[field] = errors[0] as string
    }
  }
  return out
}

function serverMessages(data: Record<string, unknown>): Record<string, string> {
  const verdict = serverValidate(data)
  return verdict.ok ? {} : verdict.errors
}

const valid = { name: 'Avery Tremblay', email: 'avery@example.com', phone: '555-555-0100', isRealtor: 'no' }

// Every row of the spec's validation table, plus the edges around each limit.
const rows: Array<[string, Record<string, unknown>, Record<string, string>]> = [
  ['a complete registration', valid, {}],
  ['a missing name', { ...valid, name: undefined }, { name: 'Name is required' }],
  ['a whitespace-only name', { ...valid, name: '   \t ' }, { name: 'Name is required' }],
  ['a name of 100 characters', { ...valid, name: 'a'.repeat(100) }, {}],
  ['a name of 101 characters', { ...valid, name: 'a'.repeat(101) }, { name: 'Max 100 characters' }],
  ['a padded name of 100 characters', { ...valid, name: `  ${'a'.repeat(100)}  ` }, {}],
  ['an invalid e-mail', { ...valid, email: 'avery@' }, { email: 'Enter a valid email' }],
  ['a missing e-mail', { ...valid, email: undefined }, { email: 'Enter a valid email' }],
  ['a padded e-mail', { ...valid, email: '  avery@example.com ' }, {}],
  [
    'an e-mail of 255 characters',
    { ...valid, email: `${'a'.repeat(60)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.ca` },
    {},
  ],
  [
    'an e-mail of 256 characters',
    { ...valid, email: `${'a'.repeat(61)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.ca` },
    { email: 'Max 255 characters' },
  ],
  ['a phone of 6 characters', { ...valid, phone: '555-01' }, { phone: 'Enter a valid phone' }],
  ['a padded phone of 6 characters', { ...valid, phone: '   555-01   ' }, { phone: 'Enter a valid phone' }],
  ['a phone of 7 characters', { ...valid, phone: '5550100' }, {}],
  ['a padded phone of 20 characters', { ...valid, phone: `  ${'5'.repeat(20)}  ` }, {}],
  ['a phone of 21 characters', { ...valid, phone: '5'.repeat(21) }, { phone: 'Max 20 characters' }],
  ['a missing phone', { ...valid, phone: undefined }, { phone: 'Enter a valid phone' }],
  ['no realtor answer', { ...valid, isRealtor: undefined }, { isRealtor: 'Please select an option' }],
  ['a realtor answer outside yes/no', { ...valid, isRealtor: 'maybe' }, { isRealtor: 'Please select an option' }],
  // A realtor answers what a brokerage needs (the config's if/then): with it, valid; without it, each field says so.
  [
    'a realtor answer of yes',
    { ...valid, isRealtor: 'yes', brokerage: 'Example Realty Inc., Brokerage', recoNumber: '5550123', forClient: 'no' },
    {},
  ],
  [
    "a realtor answer of yes without the realtor's details",
    { ...valid, isRealtor: 'yes' },
    {
      brokerage: "Enter your brokerage's name",
      recoNumber: 'Enter your RECO registration number',
      forClient: 'Please select an option',
    },
  ],
  [
    'an empty form',
    {},
    {
      name: 'Name is required',
      email: 'Enter a valid email',
      phone: 'Enter a valid phone',
      isRealtor: 'Please select an option',
    },
  ],
]

// Every character the one-line fields refuse: C0 controls, DEL and C1 controls (NEL U+0085 among them), the line
// and paragraph separators, and the bidirectional embeddings, overrides and isolates.
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)
const invisible = [
  ...range(0x00, 0x1f),
  ...range(0x7f, 0x9f),
  0x2028,
  0x2029,
  ...range(0x202a, 0x202e),
  ...range(0x2066, 0x2069),
]
const hex = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
const invisibleMessage = 'Remove the invisible or control characters'

describe('the registration validator', () => {
  it.each(invisible.map((code) => [hex(code), code] as const))(
    'refuses %s inside the name, e-mail and phone, in the browser and on the server',
    (_label, code) => {
      const ch = String.fromCodePoint(code)
      const data = { ...valid, name: `Avery${ch}Tremblay`, email: `avery${ch}@example.com`, phone: `555${ch}555-0100` }
      const expected = { name: invisibleMessage, email: invisibleMessage, phone: invisibleMessage }
      expect(browserMessages(data)).toEqual(expected)
      expect(serverMessages(data)).toEqual(expected)
    },
  )

  it('accepts letters beyond ASCII, typographic quotes and no-break spaces', () => {
    const data = { ...valid, name: 'Zoë O\u2019Brien-Lévesque\u00a0Jr', phone: '+1\u00a0555\u00a0555\u00a00100' }
    expect(browserMessages(data)).toEqual({})
    expect(serverMessages(data)).toEqual({})
  })

  it("shows the config's own message for invisible characters where it has one", async () => {
    const form = structuredClone(config.form)
    ;(form.messages as Record<string, Record<string, string>>).name!.plainText = 'Use letters only, please'
    const module = await loadGenerated(compileFormValidatorModule(form), 'custom-message')
    const own = createBrowserValidator(module.validators, module.formSchema, form.messages)
    const data = { ...valid, name: 'Avery\u202eTremblay' }
    const { errorSchema } = own.validator.validateFormData(data, module.formSchema, undefined, own.transformErrors)
    expect((errorSchema as { name?: { __errors?: string[] } }).name?.__errors).toEqual(['Use letters only, please'])
    expect(createRegistrationValidator(form)(data)).toEqual({ ok: false, errors: { name: 'Use letters only, please' } })
  })

  it('lets a textarea field keep line breaks and tabs, but not other invisible characters', async () => {
    const form = structuredClone(config.form)
    ;(form.schema.properties as Record<string, unknown>).notes = { type: 'string', maxLength: 500 }
    ;(form.uiSchema as Record<string, unknown>).notes = { 'ui:widget': 'textarea' }
    const module = await loadGenerated(compileFormValidatorModule(form), 'textarea')
    const own = createBrowserValidator(module.validators, module.formSchema, form.messages)
    const server = createRegistrationValidator(form)
    const judge = (notes: string) => {
      const data = { ...valid, notes }
      const { errorSchema } = own.validator.validateFormData(data, module.formSchema, undefined, own.transformErrors)
      const browserSays = (errorSchema as { notes?: { __errors?: string[] } }).notes?.__errors ?? []
      const verdict = server(data)
      const serverSays = verdict.ok ? [] : [verdict.errors.notes].filter(Boolean)
      expect(browserSays).toEqual(serverSays)
      return serverSays
    }
    expect(judge('First line\r\nsecond\tline')).toEqual([])
    for (const code of [0x00, 0x1b, 0x7f, 0x85, 0x2028, 0x202e, 0x2067])
      expect(judge(`a${String.fromCodePoint(code)}b`), hex(code)).toEqual([invisibleMessage])
  })

  it.each(rows)('judges %s as the spec says, in the browser', (_label, data, expected) => {
    expect(browserMessages(data)).toEqual(expected)
  })

  it.each(rows)('judges %s the same on the server', (_label, data, expected) => {
    expect(serverMessages(data)).toEqual(expected)
    expect(serverMessages(data)).toEqual(browserMessages(data))
  })

  it('ships no schema compiler: the generated code has no Function constructor', () => {
    expect(generated).not.toMatch(/new Function|\bFunction\(/)
    expect(generated).toContain('export const registration')
  })

  it('follows the config: a changed rule changes the generated validator', async () => {
    const changed = structuredClone(config.form)
    ;(changed.schema.properties as Record<string, Record<string, unknown>>).name = { type: 'string', maxLength: 5 }
    const code = compileFormValidatorModule(changed)
    expect(code).not.toEqual(generated)
    expect(code).toContain('"maxLength":5')
  })
})

describe('a conditional field (if/then, the second-launch fixture)', () => {
  const second = JSON.parse(readFileSync('tests/fixtures/second-launch/page.config.json', 'utf8')) as PageConfig
  const server = createRegistrationValidator(second.form)
  let conditional: BrowserValidator
  let schema: RJSFSchema
  beforeAll(async () => {
    const file = path.resolve('node_modules/.cache/tests', `form-validator-second-${process.pid}.mjs`)
    writeFileSync(file, compileFormValidatorModule(second.form))
    const module = (await import(pathToFileURL(file).href)) as {
      validators: ValidatorFunctions
      formSchema: RJSFSchema
    }
    schema = module.formSchema
    conditional = createBrowserValidator(module.validators, schema, second.form.messages)
  })
  const base = { name: 'Noor Haddad', email: 'noor@example.org', phone: '555-555-0187' }
  const cases: Array<[string, Record<string, unknown>, Record<string, string>]> = [
    ['a realtor without a brokerage', { ...base, isRealtor: 'yes' }, { brokerage: 'Please tell us your brokerage' }],
    [
      'a realtor with a blank brokerage',
      { ...base, isRealtor: 'yes', brokerage: '   ' },
      { brokerage: 'Please tell us your brokerage' },
    ],
    ['a realtor with a brokerage', { ...base, isRealtor: 'yes', brokerage: ' Lakeside Realty ' }, {}],
    ['a buyer without one', { ...base, isRealtor: 'no' }, {}],
  ]
  it.each(cases)('judges %s the same in the browser (precompiled) and on the server', (_label, data, expected) => {
    const { errorSchema } = conditional.validator.validateFormData(data, schema, undefined, conditional.transformErrors)
    const browserSays = Object.fromEntries(
      Object.entries(errorSchema as Record<string, { __errors?: string[] }>)
        .filter(([field, node]) => field !== '__errors' && node?.__errors?.length)
        .map(([field, node]) => [field, node.__errors![0]]),
    )
    const verdict = server(data)
    expect(browserSays).toEqual(expected)
    expect(verdict.ok ? {} : verdict.errors).toEqual(expected)
  })

  it('lets the form decide with the precompiled validator which fields to show (RJSF resolves if/then with it)', () => {
    const shown = (data: Record<string, unknown>) =>
      Object.keys(retrieveSchema(conditional.validator, schema, schema, data).properties ?? {})
    expect(shown({ ...base, isRealtor: 'yes' })).toContain('brokerage')
    expect(shown({ ...base, isRealtor: 'no' })).not.toContain('brokerage')
    expect(shown({})).not.toContain('brokerage')
  })

  it('keeps the conditional field, trimmed, among the values it stores', () => {
    const verdict = server({ ...base, isRealtor: 'yes', brokerage: ' Lakeside Realty ' })
    expect(verdict).toEqual({ ok: true, value: { ...base, isRealtor: 'yes', brokerage: 'Lakeside Realty' } })
  })
})
