import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { loadPageConfig, PageConfigError } from '../config/load-page-config.ts'
import { formatEnvProblems, parseNodeEnv } from '../server/env.ts'
import { startNodeServer, StartupError, type RunningServer } from '../server/node.ts'

/**
 * Starts the server from process.env as the command line does: prints `Listening on …`, stops cleanly on
 * SIGTERM/SIGINT, and exits 1 with a readable message when it cannot start. For `npm start` (src/cli/start.ts); run alone, it serves without building: `tsx src/cli/serve.ts`.
 */
export async function runNodeServer(): Promise<void> {
  const settings = parseNodeEnv(process.env)
  if (!settings.ok) {
    console.error(formatEnvProblems(settings.problems))
    process.exit(1)
  }
  let running: RunningServer
  try {
    running = await startNodeServer(loadPageConfig(path.resolve(settings.config.pageConfig)), settings.config)
  } catch (error) {
    if (error instanceof PageConfigError) console.error(`The page config cannot be used.\n${error.message}`)
    else console.error(error instanceof StartupError ? error.message : error)
    process.exit(1)
  }
  if (settings.config.exposedWarning) console.warn(`Warning: ${settings.config.exposedWarning}`)
  console.log(
    running.leadsPage
      ? `Leads page: on, at ${running.url}/leads (LEADS_PASSWORD is set)`
      : 'Leads page: off (set LEADS_PASSWORD to turn it on)',
  )
  for (const line of running.summary) console.log(line)
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
