import { readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { sectionSchemas } from '../../schema/sections.ts'
import { describe, expect, it } from 'vitest'
import {
  checkPageConfigFile,
  checkPageConfigText,
  formatProblems,
  type Problem,
} from '../../src/config/check-page-config.ts'
import { loadPageConfig, PageConfigError } from '../../src/config/load-page-config.ts'
import { copySecondLaunch, positionOf, replaceOnce, secondLaunchConfig } from '../fixtures/second-launch.ts'

/** Checks the second launch with one edit and returns its problems and the edited text. */
function check(edit: (text: string) => string): { problems: Problem[]; text: string; file: string } {
  const { file, text } = copySecondLaunch(edit)
  return { ...checkPageConfigFile(file), text, file }
}

function only(problems: Problem[]): Problem {
  expect(problems.map((p) => p.message)).toHaveLength(1)
  return problems[0]!
}

describe('checkPageConfigFile', () => {
  it('accepts the second development and returns its config', () => {
    const { config, problems } = checkPageConfigFile(secondLaunchConfig)
    expect(problems).toEqual([])
    expect(config?.site.name).toBe('Willowmere Commons')
  })

  it('refuses a trailing comma with its line, column and the likely cause', () => {
    const { problems, text, file } = check((t) => replaceOnce(t, '"closeLabel": "Dismiss"', '"closeLabel": "Dismiss",'))
    const problem = only(problems)
    const comma = positionOf(text, '"closeLabel": "Dismiss",')
    expect(problem.file).toBe(file)
    expect([problem.line, problem.column]).toEqual([comma.line, comma.column + '"closeLabel": "Dismiss"'.length])
    expect(problem.message).toMatch(/not valid JSON.*comma right before "}"/)
    expect(problem.fix).toBe('Delete this comma.')
    expect(problem.excerpt).toContain(`> ${comma.line} |`)
  })

  it('names a missing comma between two fields, at the end of the line', () => {
    const { problems, text } = check((t) => replaceOnce(t, '"openDelayMs": 1500,', '"openDelayMs": 1500'))
    const problem = only(problems)
    expect(problem.line).toBe(positionOf(text, '"openDelayMs": 1500').line)
    expect(problem.message).toContain('A comma is missing')
    expect(problem.fix).toContain(`end of line ${problem.line}`)
  })

  it('names an unquoted field name and a missing closing bracket', () => {
    const unquoted = check((t) => replaceOnce(t, '"closeLabel": "Dismiss"', 'closeLabel: "Dismiss"'))
    expect(only(unquoted.problems).message).toContain('The name closeLabel is not in double quotes')
    expect(unquoted.problems[0]!.line).toBe(positionOf(unquoted.text, 'closeLabel:').line)

    const cut = check((t) => t.slice(0, t.indexOf('"notFound"')))
    expect(only(cut.problems).message).toMatch(/The \{ opened here is never closed/)
    expect(cut.problems[0]!.line).toBe(1)
  })

  it('refuses an unknown section type with did-you-mean and the list of types, and nothing else', () => {
    const { problems, text } = check((t) => replaceOnce(t, '"type": "hero"', '"type": "hero2"'))
    const problem = only(problems)
    expect(problem.message).toBe(
      `sections[0].type 'hero2' is not a section type; did you mean 'hero'? The types are: ${Object.keys(sectionSchemas).join(', ')}.`,
    )
    expect([problem.line, problem.column]).toEqual(Object.values(positionOf(text, '"hero2"')))
  })

  it('reports an error inside a section against that section type only (no if/then noise)', () => {
    const { problems } = check((t) => replaceOnce(t, '"tone": "dark"', '"tone": "darker"'))
    const problem = only(problems)
    expect(problem.where).toBe('sections[3].tone')
    expect(problem.message).toBe("sections[3].tone 'darker' is not one of the allowed values; did you mean 'dark'?")
  })

  it('refuses a wrong value type and says how to write it', () => {
    const { problems, text } = check((t) => replaceOnce(t, '"openDelayMs": 1500', '"openDelayMs": "1500"'))
    const problem = only(problems)
    expect(problem.line).toBe(positionOf(text, '"openDelayMs"').line)
    expect(problem.message).toBe("modal.openDelayMs should be a whole number, without quotes, but it is text ('1500').")
    expect(problem.fix).toBe('Remove the quotes: write 1500, not "1500".')
  })

  it('refuses a missing required field, pointing at the object that lacks it', () => {
    const { problems, text } = check((t) =>
      replaceOnce(t, '"tagline": "A walkable village beside the old mill pond.",', ''),
    )
    const problem = only(problems)
    expect(problem.line).toBe(positionOf(text, '"type": "hero"').line - 1)
    expect(problem.message).toBe('sections[0] is missing "tagline" (Tagline), which is required.')
    expect(problem.fix).toBe(
      'Add "tagline": "Room to grow, five minutes from Main Street." inside sections[0]. One line under the heading.',
    )
  })

  it('refuses an unknown key at the key itself', () => {
    const { problems, text } = check((t) =>
      replaceOnce(t, '"heading": "Willowmere Commons",', '"heading": "Willowmere Commons", "subtitle": "x",'),
    )
    const problem = only(problems)
    expect([problem.line, problem.column]).toEqual(Object.values(positionOf(text, '"subtitle"')))
    expect(problem.message).toBe('sections[0] has a field "subtitle" that it does not take.')
    expect(problem.fix).toContain('sections[0] takes: type, anchor, eyebrow, heading')
  })

  it('refuses an unknown top-level key in a sentence that starts with a capital', () => {
    const { problems } = check((t) =>
      replaceOnce(t, '"configVersion": 2,', '"configVersion": 2,\n  "colour": "green",'),
    )
    const problem = only(problems)
    expect(problem.fix).toMatch(/^Delete "colour", or move it to where it belongs\. The file takes: /)
  })

  it('refuses a form field named like a part of the request (launch), at the field, saying what to do', () => {
    const { problems, text } = check((t) =>
      replaceOnce(
        t,
        '"name": { "type": "string", "maxLength": 80 },',
        '"name": { "type": "string", "maxLength": 80 },\n        "launch": { "type": "string", "title": "Launch" },',
      ),
    )
    const problem = only(problems)
    expect([problem.line, problem.column]).toEqual(
      Object.values(positionOf(text, '{ "type": "string", "title": "Launch" }')),
    )
    expect(problem.message).toBe(
      "The form cannot have a field named 'launch': the registration request already uses that name for something else.",
    )
    expect(problem.fix).toMatch(/^Rename the field \(e\.g\. 'launchAnswer'\) wherever it is named/)
  })

  it('pairs a misspelt required key with the field it was meant to be, in one message', () => {
    const { problems } = check((t) => replaceOnce(t, '"navLabel": "Site"', '"navLable": "Site"'))
    const problem = only(problems)
    expect(problem.message).toBe('header has a field "navLable" that it does not take; did you mean "navLabel"?')
    expect(problem.fix).toBe('Rename "navLable" to "navLabel" (that field is required and missing), or delete it.')
  })

  it('refuses an image that is not in public/, suggesting the file that is', () => {
    const { problems, text } = check((t) => replaceOnce(t, '"/images/hero.jpg"', '"/images/hero.jpeg"'))
    const problem = only(problems)
    expect(problem.where).toBe('sections[0].image.src')
    expect(problem.line).toBe(positionOf(text, '/images/hero.jpeg').line)
    expect(problem.message).toContain("names '/images/hero.jpeg', but there is no such file in")
    expect(problem.message).toContain("did you mean '/images/hero.jpg'?")
  })

  it('refuses an image whose file was deleted', () => {
    const { dir, file } = copySecondLaunch()
    rmSync(path.join(dir, 'public/images/map.svg'))
    const problem = only(checkPageConfigFile(file).problems)
    expect(problem.where).toBe('sections[4].image.src')
    expect(problem.message).toContain("'/images/map.svg', but there is no such file")
  })

  it('refuses a link to a missing anchor, suggesting the near one', () => {
    const { problems, text } = check((t) => replaceOnce(t, '"href": "#homes"', '"href": "#home"'))
    const problem = only(problems)
    expect(problem.line).toBe(positionOf(text, '"#home"').line)
    expect(problem.message).toBe(
      "header.links[1].href links to '#home', but no section has the anchor 'home'; did you mean '#homes'?",
    )
    expect(problem.fix).toContain('#welcome, #homes, #overview')
  })

  it('refuses a duplicate anchor at its second use', () => {
    const { problems, text } = check((t) => replaceOnce(t, '"anchor": "builder"', '"anchor": "overview"'))
    const problem = only(problems)
    expect(problem.line).toBe(positionOf(text, '"anchor": "overview"', true).line)
    expect(problem.line).toBeGreaterThan(positionOf(text, '"anchor": "overview"').line)
    expect(problem.message).toContain("sections[3].anchor 'overview' is already the anchor of sections[2]")
  })

  it('refuses a reply placeholder that would copy what a visitor typed, at its line; {name}, {phone} and {site} stay', () => {
    const file = path.resolve('page.config.json')
    const root = readFileSync(file, 'utf8')
    expect(checkPageConfigText(root, file, path.resolve('public'))).toEqual([])
    const text = replaceOnce(root, '"greeting": "Hi {name},"', '"greeting": "Hi {name}, you wrote {email}"')
    const problem = only(checkPageConfigText(text, file, path.resolve('public')))
    expect(problem).toMatchObject({ file, line: positionOf(text, '"Hi {name}, you wrote {email}"').line })
    expect(problem.message).toContain('has the placeholder {email}, which would copy what a visitor typed')
    expect(problem.fix).toContain('Remove {email}')
  })

  it('refuses an invalid e-mail', () => {
    const { problems, text } = check((t) =>
      replaceOnce(t, '"email": "hello@example.org",\n    "location"', '"email": "hello.example.org",\n    "location"'),
    )
    const problem = only(problems)
    expect(problem.line).toBe(positionOf(text, '"hello.example.org"').line)
    expect(problem.message).toBe("site.email 'hello.example.org' is not a valid e-mail address.")
  })

  it('refuses structured data whose phone or e-mail differ from the site', () => {
    const { problems } = check((t) =>
      replaceOnce(
        replaceOnce(t, '"telephone": "+1-555-555-0187"', '"telephone": "+1-555-555-0100"'),
        '"email": "hello@example.org",\n      "address"',
        '"email": "sales@example.org",\n      "address"',
      ),
    )
    expect(problems.map((p) => p.where)).toEqual(['seo.jsonLd.telephone', 'seo.jsonLd.email'])
    expect(problems[0]!.message).toContain("is not the site's phone number (site.phone.dial is '+15555550187')")
  })

  it('refuses a phone number shown differently from the one dialled', () => {
    const { problems } = check((t) => replaceOnce(t, '"display": "(555) 555-0187"', '"display": "(555) 555-0188"'))
    expect(only(problems).message).toContain('is not the number dialled')
  })

  it('refuses a relative canonical address', () => {
    const { problems } = check((t) =>
      replaceOnce(t, '"canonicalUrl": "https://willowmere.example.org/"', '"canonicalUrl": "willowmere.example.org"'),
    )
    expect(only(problems).message).toBe("seo.canonicalUrl 'willowmere.example.org' is not a full web address.")
  })

  it('refuses a broken form schema at the broken rule', () => {
    const { problems, text } = check((t) => replaceOnce(t, '"minLength": 10', '"minLength": "10"'))
    const problem = only(problems)
    expect(problem.line).toBe(positionOf(text, '"minLength": "10"').line)
    expect(problem.message).toBe(
      "The form's schema is broken: form.schema.properties.phone.minLength should be a whole number, without quotes, but it is text ('10').",
    )
  })

  it('refuses a form field type and a format that do not exist', () => {
    const type = check((t) => replaceOnce(t, '"name": { "type": "string"', '"name": { "type": "strin"'))
    expect(only(type.problems).message).toContain(
      "form.schema.properties.name.type 'strin' is not one of the allowed values; did you mean 'string'?",
    )
    const format = check((t) => replaceOnce(t, '"format": "email"', '"format": "emial"'))
    expect(only(format.problems).message).toBe(
      "form.schema.properties.email.format 'emial' is not a format the form knows; did you mean 'email'?",
    )
  })

  it('refuses a form schema that does not compile', () => {
    const { problems } = check((t) =>
      replaceOnce(t, '"isRealtor": { "type": "string", "enum"', '"isRealtor": { "$ref": "#/definitions/yesNo", "enum"'),
    )
    expect(only(problems).message).toContain(
      "The form's schema cannot be used: can't resolve reference #/definitions/yesNo",
    )
  })

  it('refuses form messages for fields and rules the form does not have, and required fields without one', () => {
    const { problems } = check((t) =>
      replaceOnce(
        t,
        '"name": { "required": "Please tell us your name", "maxLength": "Please keep it under 80 characters" },',
        '"name": { "minLength": "Too short", "maxLength": "Please keep it under 80 characters" }, "nmae": { "required": "x" },',
      ),
    )
    expect(problems.map((p) => p.message)).toEqual([
      `form.messages has no "required" message for 'name': a visitor who leaves it empty would read "must have required property 'name'".`,
      "form.messages.name.minLength is a message for a rule the field 'name' does not have, so it would never show. Its rules are: required, maxLength, type and plainText.",
      "form.messages has messages for 'nmae', but the form has no such field; did you mean 'name'?",
    ])
  })

  it('accepts a message for invisible characters on a text field, and says a number field has no such rule', () => {
    const own = check((t) =>
      replaceOnce(
        t,
        '"maxLength": "Please keep it under 80 characters"',
        '"maxLength": "Please keep it under 80 characters", "plainText": "Letters only, please"',
      ),
    )
    expect(own.problems).toEqual([])
    const numeric = check((t) =>
      replaceOnce(
        replaceOnce(t, '"name": { "type": "string"', '"name": { "type": "integer"'),
        '"maxLength": "Please keep it under 80 characters"',
        '"maxLength": "Please keep it under 80 characters", "plainText": "Letters only, please"',
      ),
    )
    expect(numeric.problems.map((p) => p.message)).toContain(
      "form.messages.name.plainText is a message for a rule the field 'name' does not have, so it would never show. Its rules are: required, maxLength and type.",
    )
  })

  it('refuses a layout (uiSchema) for a field the form does not have, and an order that leaves one out', () => {
    const { problems } = check((t) =>
      replaceOnce(
        t,
        '"ui:order": ["name", "phone", "email", "postalCode", "isRealtor", "*"],',
        '"ui:order": ["name", "email", "postalCode", "isRealtor"], "phoen": {},',
      ),
    )
    expect(problems.map((p) => p.message)).toEqual([
      `form.uiSchema["ui:order"] has no "*": 'brokerage' appears only under a condition, and then the form would not show at all.`,
      `form.uiSchema["ui:order"] leaves out 'phone': the form would not show at all.`,
      "form.uiSchema has settings for 'phoen', but the form has no such field; did you mean 'phone'?",
    ])
  })

  it('knows a conditional field (if/then): its messages and layout are fine, naming it in ui:order is not', () => {
    const { problems } = check((t) => replaceOnce(t, '"isRealtor", "*"],', '"isRealtor", "brokerage", "*"],'))
    expect(only(problems).message).toBe(
      `form.uiSchema["ui:order"] lists 'brokerage', a field that only appears under a condition: while it is hidden, the form would not show at all.`,
    )
  })

  it('refuses a key written twice, at its second occurrence', () => {
    const { problems } = check((t) =>
      replaceOnce(t, '"closeLabel": "Dismiss"', '"closeLabel": "Dismiss", "closeLabel": "Close"'),
    )
    expect(only(problems).message).toMatch(
      /^modal has "closeLabel" twice \(both on line \d+\); only the last one counts\.$/,
    )
  })

  it('reports a file that does not exist in plain words', () => {
    const problem = only(checkPageConfigFile('/nowhere/page.config.json').problems)
    expect(problem.message).toBe('There is no file here.')
  })
})

describe('checkPageConfigText', () => {
  it('lists every problem of a config in file order', () => {
    const text = JSON.stringify({ configVersion: 2, site: { name: 'x' }, sections: [{ type: 'hero2' }] }, null, 2)
    const problems = checkPageConfigText(text, 'inline.json', '/nowhere')
    expect(problems.length).toBeGreaterThan(3)
    const positions = problems.map((p) => p.line * 1000 + p.column)
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
    expect(problems.map((p) => p.message)).toContain('The file is missing "seo" (SEO), which is required.')
  })
})

describe('formatProblems', () => {
  it('prints file:line:column, the marked excerpt, what is wrong and what to do', () => {
    const { problems } = check((t) => replaceOnce(t, '"type": "hero"', '"type": "hero2"'))
    const text = formatProblems(problems)
    const [first, , excerptLine, marker, , message, fix] = text.split('\n')
    expect(first).toMatch(/page\.config\.json:\d+:15$/)
    expect(excerptLine).toContain('"type": "hero2",')
    expect(marker).toMatch(/\|\s+\^{7}$/)
    expect(message).toContain("'hero2' is not a section type")
    expect(fix).toMatch(/^ {2}What to do: /)
  })
})

describe('loadPageConfig', () => {
  it('throws PageConfigError whose message and problems carry the same plain words', () => {
    const { file } = copySecondLaunch((t) => replaceOnce(t, '"type": "hero"', '"type": "hero2"'))
    let error: unknown
    try {
      loadPageConfig(file)
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(PageConfigError)
    const configError = error as PageConfigError
    expect(configError.problems).toHaveLength(1)
    expect(configError.problems[0]).toContain("sections[0].type 'hero2' is not a section type; did you mean 'hero'?")
    expect(configError.message).toContain('1 problem')
    expect(configError.message).toContain(configError.problems[0])
    expect(configError.details[0]?.where).toBe('sections[0].type')
  })

  it('returns the config of a valid file', () => {
    expect(loadPageConfig(secondLaunchConfig).sections.map((s) => s.type)).toEqual([
      'hero',
      'home-types',
      'feature',
      'highlights',
      'drive-times',
      'contact',
      'registration',
    ])
  })
})
