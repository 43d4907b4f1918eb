import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { findChromium } from './find-chromium.ts'
import { unformattedFiles } from './format-check.ts'

// `npm test`: finds a Chromium, checks the layout (Prettier), the rules (ESLint) and the types (tsc), builds the site
// the e2e tests serve, then runs every test, and names the ten slowest test files. It always ends with one plain
// line, `N passed, M failed`, in which anything that failed counts: a failed test, a test file that failed as a whole
// (an import that throws, an error in beforeAll), or a step before the tests.

const startedAt = Date.now()

/** The closing line and the exit code; a run that failed never says 0 failed. */
function finish(passed: number, failed: number, skipped = 0, exitCode = failed > 0 ? 1 : 0): never {
  const failedCount = exitCode !== 0 ? Math.max(failed, 1) : failed
  console.log(`\nnpm test took ${formatDuration(Date.now() - startedAt)}.`)
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

function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`
}

/** Runs a step's command with its output shown; resolves to its exit code. Steps that can share the machine overlap. */
function runInParallel(step: string, command: string, args: string[]): Promise<{ step: string; code: number }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' })
    child.on('close', (code) => resolve({ step, code: code ?? 1 }))
  })
}

/** The layout step: the files git knows (tracked, or new and not ignored) that Prettier would change. */
async function checkLayout(): Promise<boolean> {
  console.log('\n▶ Layout (Prettier)')
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
  const files = listed.status === 0 ? listed.stdout.split('\n').filter((file) => file && existsSync(file)) : []
  const unformatted = await unformattedFiles(files)
  for (const { file, line } of unformatted) console.error(`${file}:${line}: not in Prettier's layout (npm run format)`)
  return unformatted.length === 0
}

/** The ten test files that took longest, slowest first, so a slow file is seen where it is. */
function printSlowest(files: FileResult[]): void {
  const timed = files
    .filter((file) => file.startTime !== undefined && file.endTime !== undefined)
    .map((file) => ({ name: file.name.replace(`${process.cwd()}/`, ''), ms: file.endTime! - file.startTime! }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10)
  console.log('\nThe ten slowest test files:')
  for (const { name, ms } of timed) console.log(`  ${(ms / 1000).toFixed(1).padStart(6)} s  ${name}`)
}

type FileResult = {
  status: string
  name: string
  message?: string
  startTime?: number
  endTime?: number
  assertionResults: Array<{ status: string }>
}
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
const layoutOk = await checkLayout()
console.log('\n▶ Lint (ESLint) and type check (tsc), side by side')
const checks = await Promise.all([
  runInParallel('Lint (ESLint)', `${bin}/eslint`, ['.', '--max-warnings=0']),
  runInParallel('Type check (tsc)', `${bin}/tsc`, ['--noEmit']),
])
const failedChecks = [
  ...(layoutOk ? [] : ['Layout (Prettier)']),
  ...checks.filter((c) => c.code !== 0).map((c) => c.step),
]
if (failedChecks.length > 0) {
  for (const step of failedChecks) console.error(`\n✖ ${step} failed: see its lines above.`)
  finish(0, failedChecks.length)
}
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
printSlowest(report.testResults)
finish(
  report.numPassedTests,
  report.numFailedTests + brokenFiles.length,
  report.numPendingTests + report.numTodoTests,
  vitestExit,
)
