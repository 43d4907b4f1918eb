import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { ESLint } from 'eslint'
import tseslint from 'typescript-eslint'
import { afterAll, describe, expect, it } from 'vitest'
import { noDataReplacement } from '../../eslint-rules/no-data-replacement.ts'

// The project's rule, run by ESLint itself with type information over small files: what it must refuse and allow.

const dir = mkdtempSync(path.join(tmpdir(), 'no-data-replacement-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * The rule's reports (line numbers) for one file's text. Each file gets a folder and a TypeScript project of its own:
 * a project made for an earlier file does not see a later one, and ESLint would refuse to parse it.
 */
async function reportsOf(name: string, code: string): Promise<number[]> {
  const folder = path.join(dir, name)
  mkdirSync(folder)
  writeFileSync(
    path.join(folder, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'ES2022', lib: ['ES2022'], noEmit: true },
      include: ['*.ts'],
    }),
  )
  const file = path.join(folder, `${name}.ts`)
  writeFileSync(file, code)
  const eslint = new ESLint({
    cwd: folder,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ['**/*.ts'],
        languageOptions: {
          parser: tseslint.parser,
          parserOptions: { project: './tsconfig.json', tsconfigRootDir: folder },
        },
        plugins: { project: { rules: { 'no-data-replacement': noDataReplacement } } as unknown as ESLint.Plugin },
        rules: { 'project/no-data-replacement': 'error' },
      },
    ],
  })
  const [result] = await eslint.lintFiles([file])
  expect(result!.messages.filter((m) => m.ruleId !== 'project/no-data-replacement')).toEqual([])
  return result!.messages.map((m) => m.line)
}

describe('project/no-data-replacement', () => {
  it('refuses replace and replaceAll whose replacement is a string built from data', async () => {
    const code = [
      'export function fill(template: string, name: string): string {',
      "  const a = template.replace('{name}', name)",
      "  const b = template.replaceAll('{name}', `<b>${name}</b>`)",
      "  const c = template.replace(/\\{name\\}/g, 'x' + name)",
      '  return a + b + c',
      '}',
      '',
    ].join('\n')
    expect(await reportsOf('data', code)).toEqual([2, 3, 4])
  })

  it('allows a literal replacement and a function', async () => {
    const code = [
      'export function fill(template: string, name: string): string {',
      "  const a = template.replace('{name}', 'Ada')",
      "  const b = template.replaceAll('{name}', () => name)",
      '  const c = template.replace(/\\{(\\w+)\\}/g, (_, key: string) => key + name)',
      '  const d = template.replace(/x/g, `literal`)',
      '  return a + b + c + d',
      '}',
      '',
    ].join('\n')
    expect(await reportsOf('safe', code)).toEqual([])
  })

  it('leaves a replace method of something that is not a string alone', async () => {
    const code = [
      'const box = { replace: (a: string, b: string) => a + b }',
      'export const joined = (name: string) => box.replace("x", name)',
      '',
    ].join('\n')
    expect(await reportsOf('other', code)).toEqual([])
  })
})
