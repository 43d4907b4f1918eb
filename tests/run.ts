import { spawnSync } from 'node:child_process'
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
run('Tests (vitest)', `${bin}/vitest`, ['run', ...process.argv.slice(2)], { ...process.env, CHROME_PATH: chromePath })
