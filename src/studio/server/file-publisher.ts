import { existsSync } from 'node:fs'
import path from 'node:path'
import { checkPageConfigText, publicDirFor } from '../../config/check-page-config.ts'
import { launchesDirOf } from '../../config/launches.ts'
import { writeFileAtomically } from '../../config/config-file.ts'
import type { LaunchPublisher, ServedLaunch } from '../../server/site/launch-publisher.ts'
import { fileText } from './launches.ts'

/**
 * A LaunchPublisher that checks the text with the real checker and writes the launch's page.config.json atomically,
 * and builds nothing: the site serves the change after the next `npm start`. A stand-in until the Node server's own
 * publisher (src/server/site/, which builds and swaps the launch at once) is passed to the studio instead. With `root`,
 * `add` finds launches/<slug>/ there (served at `localUrlOf(slug)`).
 */
export function createFilePublisher(
  initial: Array<Omit<ServedLaunch, 'status'>>,
  options: { root?: string; localUrlOf?: (slug: string) => string } = {},
): LaunchPublisher {
  const launches = [...initial]
  const status = new Map<string, ServedLaunch['status']>()
  const statusOf = (launch: Omit<ServedLaunch, 'status'>) => {
    const text = fileText(launch as ServedLaunch)
    return text === undefined
      ? 'unpublished'
      : checkPageConfigText(text, launch.configFile, publicDirFor(launch.configFile)).length
        ? 'broken'
        : 'live'
  }
  for (const launch of launches) status.set(launch.slug, statusOf(launch))
  const queues = new Map<string, Promise<unknown>>()
  return {
    publish(slug, configText) {
      const launch = launches.find((l) => l.slug === slug)
      const run = () => {
        const started = performance.now()
        if (!launch)
          return {
            ok: false as const,
            problems: [
              {
                file: slug,
                line: 1,
                column: 1,
                where: 'the file',
                message: `There is no launch "${slug}".`,
                fix: 'Start it with npm run new-launch first.',
                excerpt: '',
              },
            ],
          }
        const problems = checkPageConfigText(configText, launch.configFile, publicDirFor(launch.configFile))
        if (problems.length) return { ok: false as const, problems }
        writeFileAtomically(launch.configFile, configText)
        status.set(slug, 'live')
        return { ok: true as const, ms: Math.round(performance.now() - started) }
      }
      // One publish at a time per launch.
      const result = (queues.get(slug) ?? Promise.resolve()).then(run, run)
      queues.set(slug, result)
      return result
    },
    list() {
      return launches.map((launch) => ({ ...launch, status: status.get(launch.slug) ?? 'unpublished' }))
    },
    add(slug) {
      const known = launches.find((launch) => launch.slug === slug)
      if (known) return { ...known, status: status.get(slug) ?? 'unpublished' }
      if (options.root === undefined || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) return undefined
      const configFile = path.join(launchesDirOf(options.root), slug, 'page.config.json')
      if (!existsSync(configFile)) return undefined
      let siteName = slug
      try {
        siteName =
          (JSON.parse(fileText({ configFile } as ServedLaunch) ?? '{}') as { site?: { name?: string } }).site?.name ??
          slug
      } catch {
        // A config that cannot be read yet still has its folder's name.
      }
      const launch = {
        slug,
        siteName,
        configFile,
        localUrl: options.localUrlOf?.(slug) ?? `http://${slug}.localhost:3000/`,
      }
      launches.push(launch)
      status.set(slug, 'unpublished')
      return { ...launch, status: 'unpublished' as const }
    },
  }
}
