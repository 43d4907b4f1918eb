import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ESLint, type Linter } from 'eslint'
import tseslint from 'typescript-eslint'
import { afterAll, describe, expect, it } from 'vitest'
import { firstDifferentLine, unformattedFiles } from '../format-check.ts'

// What `npm test` holds every source file to before it runs a test (tests/run.ts): Prettier's layout and ESLint's
// rules. These check that the project's own config sets the rules for src/, schema/ and supabase/, and that the
// rules, so set, name the file and line of a long function, a long file and a replacement built from data.

const repo = process.cwd()
const dir = mkdtempSync(path.join(tmpdir(), 'code-rules-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A rule's severity and options as the project's config sets them for one file. */
async function ruleFor(file: string, rule: string): Promise<Linter.RuleEntry | undefined> {
  const config = (await new ESLint({ cwd: repo }).calculateConfigForFile(file)) as Linter.Config | undefined
  return config?.rules?.[rule]
}

describe("the project's lint rules", () => {
  it('hold src/, schema/ and supabase/ to 80-line functions, 450-line files, no data-built replacement', async () => {
    for (const file of [
      'src/server/app.ts',
      'schema/page-config.ts',
      'supabase/functions/send-contact-email/index.ts',
    ]) {
      expect(await ruleFor(file, 'max-lines-per-function'), file).toEqual([2, expect.objectContaining({ max: 80 })])
      expect(await ruleFor(file, 'max-lines'), file).toEqual([2, expect.objectContaining({ max: 450 })])
    }
    for (const file of ['src/server/app.ts', 'schema/page-config.ts', 'src/page/Page.tsx']) {
      expect(await ruleFor(file, 'project/no-data-replacement'), file).toEqual([2])
      expect(await ruleFor(file, '@typescript-eslint/no-floating-promises'), file).toEqual([2])
    }
  })

  it('report a 90-line function, a 460-line file and a replace with a typed value, each at its line', async () => {
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true }, include: ['*.ts'] }),
    )
    const project = (await new ESLint({ cwd: repo }).calculateConfigForFile('src/server/app.ts')) as Linter.Config
    const rules = Object.fromEntries(
      ['max-lines-per-function', 'max-lines', 'project/no-data-replacement'].map((rule) => [
        rule,
        project.rules![rule]!,
      ]),
    )
    const eslint = new ESLint({
      cwd: dir,
      overrideConfigFile: true,
      overrideConfig: [
        {
          files: ['**/*.ts'],
          languageOptions: {
            parser: tseslint.parser,
            parserOptions: { project: './tsconfig.json', tsconfigRootDir: dir },
          },
          plugins: { project: project.plugins!.project! },
          rules,
        },
      ],
    })
    const steps = Array.from({ length: 90 }, (_, i) => `  total += ${i}`).join('\n')
    const padding = Array.from({ length: 360 }, (_, i) => `export const value${i} = ${i}`).join('\n')
    const code = [
      'export function long(): number {',
      '  let total = 0',
      steps,
      '  return total',
      '}',
      'export function fill(template: string, name: string): string {',
      "  return template.replace('{name}', name)",
      '}',
      padding,
      '',
    ].join('\n')
    writeFileSync(path.join(dir, 'probe.ts'), code)
    const [result] = await eslint.lintFiles([path.join(dir, 'probe.ts')])
    const reports = result!.messages.map((m) => `${m.line} ${m.ruleId}`)
    expect(reports).toEqual(['1 max-lines-per-function', '96 project/no-data-replacement', '451 max-lines'])
  })
})

describe("npm test's layout check", () => {
  it('names an unformatted file with the first line that is not in Prettier’s layout', async () => {
    // In the repository, where .prettierrc.json and .prettierignore apply; removed at once.
    const probe = mkdtempSync(path.join(repo, 'tests', 'architecture', '.layout-probe-'))
    try {
      const file = path.relative(repo, path.join(probe, 'unformatted.ts'))
      writeFileSync(file, 'export const a = 1\nexport const b   =   [1,2]\n')
      const tidy = path.relative(repo, path.join(probe, 'tidy.ts'))
      writeFileSync(tidy, 'export const a = 1\n')
      expect(await unformattedFiles([file, tidy])).toEqual([{ file, line: 2 }])
    } finally {
      rmSync(probe, { recursive: true, force: true })
    }
  })

  it('counts lines from 1', () => {
    expect(firstDifferentLine('a\nb\nc', 'a\nB\nc')).toBe(2)
    expect(firstDifferentLine('x', 'y')).toBe(1)
  })
})
