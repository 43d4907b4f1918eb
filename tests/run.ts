import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { findChromium } from './find-chromium.ts'

// `npm test`: finds a Chromium, type-checks, builds the site the e2e tests serve, then runs every test.
function run(step: string, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): void {
  console.log(`\n▶ ${step}`)
  const result = spawnSync(command, args, { stdio: 'inherit', env })
  if (result.status !== 0) {
    console.error(`\n✖ ${step} failed.`)
    process.exit(result.status ?? 1)
  }
}

let chromePath: string
try {
  chromePath = await findChromium()
} catch (error) {
  console.error((error as Error).message)
  process.exit(1)
}
console.log(`Using Chromium at ${chromePath}`)
const bin = 'node_modules/.bin'
run('Type check (tsc)', `${bin}/tsc`, ['--noEmit'])
run('Build the site', `${bin}/tsx`, ['src/cli/build.ts'])
const results = 'node_modules/.cache/vitest-results.json'
rmSync(results, { force: true })
const vitest = spawnSync(
  `${bin}/vitest`,
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}`, ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, CHROME_PATH: chromePath } },
)
// One plain closing line with the counts, whatever the reporter above printed.
if (existsSync(results)) {
  const counts = JSON.parse(readFileSync(results, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number }
  const skipped = counts.numPendingTests + counts.numTodoTests
  console.log(`\nTests: ${counts.numPassedTests} passed, ${counts.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`)
}
if (vitest.status !== 0) {
  console.error('\n✖ Tests (vitest) failed.')
  process.exit(vitest.status ?? 1)
}
