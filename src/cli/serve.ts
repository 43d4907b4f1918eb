import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { findLaunches, LaunchesError, loadLaunches, type Launch } from '../config/launches.ts'
import { PageConfigError } from '../config/load-page-config.ts'
import { formatEnvProblems, parseNodeEnv } from '../server/env.ts'
import { startNodeServer, StartupError, type RunningServer } from '../server/node.ts'
import { nodeStudioOf } from '../studio/server/node-studio.ts'

/**
 * Starts the server from process.env as the command line does: every launch (or PAGE_CONFIG's alone), each from
 * DIST_DIR/<slug>/; prints each launch's addresses and `Listening on …`, stops cleanly on SIGTERM/SIGINT, and exits 1
 * with a readable message when it cannot start. For `npm start` (src/cli/start.ts), which passes the launches it
 * has checked and built; run alone, it serves without building: `tsx src/cli/serve.ts`.
 */
export async function runNodeServer(checked?: Launch[]): Promise<void> {
  const settings = parseNodeEnv(process.env)
  if (!settings.ok) {
    console.error(formatEnvProblems(settings.problems))
    process.exit(1)
  }
  const publicUrl = process.env.PUBLIC_URL?.trim() || undefined
  if (publicUrl && !(URL.canParse(publicUrl) && /^https?:$/.test(new URL(publicUrl).protocol))) {
    console.error(`PUBLIC_URL must be the address people open the site at, such as https://www.example.com (it is "${publicUrl}"): the studio's links start with it.`)
    process.exit(1)
  }
  let running: RunningServer
  try {
    const launches = checked ?? loadLaunches(findLaunches(process.cwd(), process.env))
    const studio = nodeStudioOf({
      launches,
      clientDir: path.resolve(settings.config.distDir, '_studio'),
      publicUrl: publicUrl && new URL(publicUrl).origin,
      port: settings.config.port,
    })
    running = await startNodeServer(launches, settings.config, process.cwd(), { studio })
  } catch (error) {
    if (error instanceof PageConfigError || error instanceof LaunchesError) console.error(`The page config cannot be used.\n${error.message}`)
    else console.error(error instanceof StartupError ? error.message : error)
    process.exit(1)
  }
  if (settings.config.exposedWarning) console.warn(`Warning: ${settings.config.exposedWarning}`)
  console.log(
    running.leadsPage
      ? `Leads page: on, at ${running.url}/leads (LEADS_PASSWORD is set)`
      : 'Leads page: off (set LEADS_PASSWORD to turn it on)',
  )
  console.log(`Studio: ${running.url}/studio (off until someone has an account: npm run studio:invite -- --email <address> --role owner)`)
  for (const line of running.summary) console.log(line)
  for (const launch of running.launches) {
    const other = launch.isDefault ? ' and any other address' : ''
    console.log(`Launch ${launch.slug}${launch.isDefault ? ' (default)' : ''}: ${launch.localUrl}, ${new URL(launch.canonicalUrl).host}${other}`)
  }
  console.log(`Listening on ${running.url}`)
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
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await runNodeServer()
}
