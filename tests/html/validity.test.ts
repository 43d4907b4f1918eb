import { readFileSync } from 'node:fs'
import path from 'node:path'
import { HtmlValidate, type ConfigData, type Message } from 'html-validate'
import { describe, expect, it } from 'vitest'

// HTML validity of the prerendered pages (npm test builds dist/ first): html-validate's recommended rules plus
// its rules for whole documents, with only these relaxations.
const config: ConfigData = {
  extends: ['html-validate:recommended', 'html-validate:document'],
  rules: {
    // Style, not validity: the HTML standard makes these equivalent, and the markup comes from tools we do not
    // format by hand (Vite's index.html template, React's serializer).
    'doctype-style': 'off', // `<!doctype html>` and `<!DOCTYPE html>` are the same doctype
    'void-style': 'off', // React writes `<meta/>`, `<img/>`; the trailing slash is allowed on void elements
    'attr-case': 'off', // React writes `fetchPriority`, `noValidate`: attribute names are case-insensitive in HTML
    'attribute-boolean-style': 'off', // React writes `noValidate=""`, a valid boolean attribute
    // React's useId() makes ids like `_R_1a_`: valid HTML ids (any non-space characters); the default rule also
    // asks for a leading letter only so that ids are easy to use in CSS selectors.
    'valid-id': ['error', { relaxed: true }],
    // Subresource integrity matters for files from other origins; the page loads only its own /assets/.
    'require-sri': ['error', { target: 'crossorigin' }],
    // A phone number must not wrap; Tailwind's whitespace-nowrap on the link does that as well as &nbsp; and
    // &#8209; would. (Tailwind scans this file too: naming a class here that the page lacks would add it to the CSS.)
    'tel-non-breaking': ['error', { ignoreClasses: ['whitespace-nowrap'] }],
  },
}

// The default launch's site, which npm test built into dist/<slug>/ (tests/run.ts builds before the tests run).
const distDir = path.resolve(
  process.env.DIST_DIR || 'dist',
  (JSON.parse(readFileSync('page.config.json', 'utf8')) as { launch: { slug: string } }).launch.slug,
)
const validator = new HtmlValidate(config)

/** The errors in a page, one line each: where, which rule, what, and the element (to find its component). */
async function errorsIn(html: string, name: string): Promise<string[]> {
  const report = await validator.validateString(html, name)
  return report.results.flatMap((result) =>
    result.messages
      .filter((message: Message) => message.severity === 2)
      .map(
        (message: Message) =>
          `${name}:${message.line}:${message.column} ${message.ruleId}: ${message.message} [${message.selector ?? ''}]`,
      ),
  )
}

describe('HTML validity of the built pages', () => {
  for (const page of ['index.html', '404.html', 'privacy.html', 'registered.html']) {
    it(`finds no errors in ${page}`, async () => {
      const html = readFileSync(path.join(distDir, page), 'utf8')
      expect(await errorsIn(html, page)).toEqual([])
    })
  }

  it('still reports what invalid HTML looks like with these relaxations', async () => {
    const broken = readFileSync(path.join(distDir, 'index.html'), 'utf8').replace(
      '<main id="main">',
      '<main id="main"><img src="/x.png"><dt>term</dt><p id="main">duplicate</p><a href="tel:+1555">555 0100</a>',
    )
    const rules = (await errorsIn(broken, 'broken.html')).map((line) => line.split(' ')[1])
    expect(rules).toEqual(
      expect.arrayContaining(['wcag/h37:', 'element-required-ancestor:', 'no-dup-id:', 'tel-non-breaking:']),
    )
  })
})
