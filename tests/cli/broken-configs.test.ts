import { spawn } from 'node:child_process'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { brokenConfigs } from '../fixtures/broken-configs.ts'
import { copySecondLaunch, positionOf } from '../fixtures/second-launch.ts'

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')

function run(script: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const { PAGE_CONFIG: _ignored, ...inherited } = process.env
  return new Promise((resolve) => {
    const child = spawn(tsx, [path.join(root, script)], { cwd: root, env: { ...inherited, ...env } })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('close', (code) => resolve({ code, out }))
  })
}

describe('a broken config is refused by validate and by build, with the same message naming the spot', () => {
  for (const broken of brokenConfigs) {
    it(`refuses ${broken.name}`, async () => {
      const { dir, file, text } = copySecondLaunch(broken.edit)
      const { line } = positionOf(text, broken.lineWith, true)
      const env = { PAGE_CONFIG: file, DIST_DIR: path.join(dir, 'dist') }
      const [validate, build] = await Promise.all([run('src/cli/validate.ts', env), run('src/cli/build.ts', env)])
      for (const [name, result] of Object.entries({ validate, build })) {
        expect(result.code, name).toBe(1)
        expect(result.out, name).toContain(`${file}:${line}:`)
        expect(result.out, name).toContain(broken.message)
        expect(result.out, name).not.toMatch(/^\s+at /m)
      }
    })
  }
})
