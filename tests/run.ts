import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { findChromium } from './find-chromium.ts'

// `npm test`: finds a Chromium, type-checks, builds the site the e2e tests serve, then runs every test. It always
// ends with one plain line, `N passed, M failed`, in which anything that failed counts: a failed test, a test file
// that failed as a whole (an import that throws, an error in beforeAll), or a step before the tests.

/** The closing line and the exit code; a run that failed never says 0 failed. */
function finish(passed: number, failed: number, skipped = 0, exitCode = failed > 0 ? 1 : 0): never {
  const failedCount = exitCode !== 0 ? Math.max(failed, 1) : failed
  console.log(`\n${passed} passed, ${failedCount} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(failedCount > 0 ? exitCode || 1 : 0)
}

function run(step: string, command: string, args: string[]): void {
  console.log(`\n▶ ${step}`)
  const result = spawnSync(command, args, { stdio: 'inherit' })
  if (result.status !== 0) {
    console.error(`\n✖ ${step} failed.`)
    finish(0, 1, 0, result.status ?? 1)
  }
}

type FileResult = { status: string; name: string; message?: string; assertionResults: Array<{ status: string }> }
type VitestReport = {
  numPassedTests: number
  numFailedTests: number
  numPendingTests: number
  numTodoTests: number
  testResults: FileResult[]
}

let chromePath = ''
try {
  chromePath = await findChromium()
} catch (error) {
  console.error((error as Error).message)
  finish(0, 1)
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
const vitestExit = vitest.status ?? 1
if (!existsSync(results)) {
  console.error('\n✖ Vitest wrote no results.')
  finish(0, 1, 0, vitestExit || 1)
}
const report = JSON.parse(readFileSync(results, 'utf8')) as VitestReport
// A file whose tests never ran (its import threw, or a beforeAll failed) counts once, as a failure.
const brokenFiles = report.testResults.filter(
  (file) => file.status === 'failed' && !file.assertionResults.some((a) => a.status === 'failed'),
)
for (const file of brokenFiles) console.error(`✖ ${file.name}: the file failed before its tests could run.`)
finish(
  report.numPassedTests,
  report.numFailedTests + brokenFiles.length,
  report.numPendingTests + report.numTodoTests,
  vitestExit,
)
