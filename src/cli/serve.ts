import './production-env.ts'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { createLaunchBuilder } from '../build/launch-builder.ts'
import {
  findLaunches,
  LaunchesError,
  loadLaunchesAlone,
  type BrokenLaunchSource,
  type Launch,
} from '../config/launches.ts'
import { PageConfigError } from '../config/load-page-config.ts'
import { formatEnvProblems, parseNodeEnv } from '../server/env.ts'
import { startNodeServer, StartupError } from '../server/node.ts'
import type { BrokenLaunch, RunningServer } from '../server/node-options.ts'
import { readBundleEntries } from '../build/function-bundle.ts'
import { nodeStudioOf } from '../studio/server/node-studio.ts'

/** The launches to serve: those that can be used, and those whose config (or build) is broken now. */
export type LaunchesToServe = { launches: Launch[]; broken: Array<BrokenLaunchSource & { message?: string }> }

/**
 * The server's view of broken launches: each one's slug (its folder, the slug its file states, or for a default
 * launch whose file cannot be read, the one the function's bundle names), and its last good contract from the bundle.
 */
function brokenToServe(broken: LaunchesToServe['broken'], root: string): BrokenLaunch[] {
  const bundle = readBundleEntries(root)
  return broken.flatMap((launch) => {
    const slug = launch.slug ?? (launch.isDefault ? (bundle.defaultLaunch ?? 'default') : undefined)
    if (slug === undefined) return []
    const last = bundle.entries.get(slug)
    return [
      {
        slug,
        isDefault: launch.isDefault,
        configFile: launch.configFile,
        siteName: launch.siteName ?? last?.site.name ?? slug,
        problem: { place: launch.place, message: launch.message ?? launch.error.message },
        lastGood: last ? { contract: last, tagManager: false } : undefined,
      },
    ]
  })
}

/**
 * Starts the server from process.env as the command line does: every launch (or PAGE_CONFIG's alone), each from
 * DIST_DIR/<slug>/; a launch whose config is broken serves its last good build (or 503 "not published yet") and the
 * others start anyway. Prints each launch's addresses, where each broken one's problem is, the addresses a browser
 * opens and `Listening on …`; stops cleanly on SIGTERM/SIGINT, and exits 1 with a readable message when it cannot
 * start; returns the running server (its publisher). For `npm start` (src/cli/start.ts), which passes the launches it
 * has checked and built; run alone, it serves
 * without building: `tsx src/cli/serve.ts`.
 */
export async function runNodeServer(checked?: LaunchesToServe): Promise<RunningServer> {
  const settings = parseNodeEnv(process.env)
  if (!settings.ok) {
    console.error(formatEnvProblems(settings.problems))
    process.exit(1)
  }
  const root = process.cwd()
  let running: RunningServer
  try {
    const { launches, broken } = checked ?? loadLaunchesAlone(findLaunches(root, process.env))
    running = await startNodeServer(
      launches.map((launch) => ({
        slug: launch.slug,
        config: launch.config,
        isDefault: launch.isDefault,
        configFile: launch.configFile,
      })),
      settings.config,
      root,
      {
        broken: brokenToServe(broken, root),
        builder: createLaunchBuilder(root, process.env),
        studio: nodeStudioOf({
          clientDir: path.resolve(settings.config.distDir, '_studio'),
          publicUrl: settings.config.publicUrl,
          studioHost: settings.config.studioHost,
          root,
        }),
      },
    )
  } catch (error) {
    if (error instanceof PageConfigError || error instanceof LaunchesError)
      console.error(`The page config cannot be used.\n${error.message}`)
    else console.error(error instanceof StartupError ? error.message : error)
    process.exit(1)
  }
  if (settings.config.exposedWarning) console.warn(`Warning: ${settings.config.exposedWarning}`)
  printStartSummary(running)
  const stop = (signal: string) => {
    console.log(`${signal} received: stopping…`)
    running.close().then(
      () => {
        console.log('Stopped.')
        process.exit(0)
      },
      (error: unknown) => {
        console.error('Could not stop cleanly:', error)
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', () => stop('SIGTERM'))
  process.once('SIGINT', () => stop('SIGINT'))
  return running
}

/**
 * What the server says once it listens: the leads page, the studio, its summary, each launch's address, what is broken.
 */
function printStartSummary(running: RunningServer): void {
  const port = new URL(running.url).port
  const leadsLine = {
    password: `Leads page: on, at http://localhost:${port}/leads (LEADS_PASSWORD is set; studio accounts sign in with their e-mail)`,
    accounts: `Leads page: on, at http://localhost:${port}/leads for studio accounts`,
    off: 'Leads page: off until the studio has an account (npm run studio:invite -- --email <address> --role sales) or LEADS_PASSWORD is set',
  }
  console.log(leadsLine[running.leadsPage])
  console.log(
    `Studio: ${running.url}/studio (off until someone has an account: npm run studio:invite -- --email <address> --role owner)`,
  )
  for (const line of running.summary) console.log(line)
  for (const launch of running.launches) {
    const other = launch.isDefault ? ' and any other address' : ''
    const host = launch.canonicalUrl ? `, ${new URL(launch.canonicalUrl).host}${other}` : ''
    const state = launch.status === 'unpublished' ? ' (not published yet: 503)' : ''
    console.log(`Launch ${launch.slug}${launch.isDefault ? ' (default)' : ''}: ${launch.localUrl}${host}${state}`)
  }
  const broken = running.launches.filter((launch) => launch.broken)
  for (const launch of broken) console.error(`\n${launch.broken}\n`)
  console.log(
    `Open in a browser: ${[running.browserUrl, ...running.launches.filter((launch) => !launch.isDefault).map((launch) => launch.localUrl)].join('  ')}`,
  )
  console.log(`Listening on ${running.url}`)
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await runNodeServer()
}
