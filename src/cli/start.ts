import './production-env.ts'
import { readBuildSettings } from '../server/env.ts'
import { runNodeServer } from './serve.ts'
import { buildFailureMessage, buildLaunches } from './build.ts'

// `npm start`: checks every launch, builds each whose inputs changed since its last build, then serves them all
// with the backend. A launch that is broken (its config, an image, the prerender) is reported and serves its last
// good build; the others start anyway.
let built
try {
  built = await buildLaunches({ settings: readBuildSettings(process.env), onlyStale: true })
} catch (error) {
  console.error(buildFailureMessage(error))
  process.exit(1)
}
await runNodeServer({ launches: built.launches, broken: built.broken })
