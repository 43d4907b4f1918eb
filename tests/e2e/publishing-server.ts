import { createInterface } from 'node:readline'
import { readFileSync } from 'node:fs'
import { readBuildSettings } from '../../src/server/env.ts'
import { buildLaunches } from '../../src/cli/build.ts'
import { runNodeServer } from '../../src/cli/serve.ts'

// `npm start` (src/cli/start.ts) with its publisher driven from stdin, for tests: each line `publish <slug> <file>`
// publishes that file's bytes as the launch's config through the running server's LaunchPublisher, and prints
// `publish-result <json>` (the PublishResult) on a line of its own when it resolves.
const built = await buildLaunches({ settings: readBuildSettings(process.env), onlyStale: true })
const running = await runNodeServer({ launches: built.launches, broken: built.broken })
for await (const line of createInterface({ input: process.stdin })) {
  const [command, slug, file] = line.trim().split(' ')
  if (command !== 'publish' || !slug || !file) continue
  const result = await running.publisher.publish(slug, readFileSync(file, 'utf8'))
  console.log(`publish-result ${JSON.stringify(result)}`)
}
