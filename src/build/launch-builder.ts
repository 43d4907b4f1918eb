import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Problem } from '../../schema/config-problem.ts'
import { functionLaunchOf } from '../../schema/function-launch.ts'
import type { PageConfig } from '../../schema/page-config.ts'
import { readBundleEntries, writeFunctionBundleEntries } from './function-bundle.ts'
import { readBuildSettings, type BuildSettings } from '../server/env.ts'
import type { Env } from '../server/settings/read-settings.ts'
import type { LaunchBuilder, LaunchFolder } from '../server/site/publisher.ts'
import { checkPageConfigText, publicDirFor } from '../config/check-page-config.ts'
import { checkLaunchSet, findLaunches, launchesDirOf, loadLaunchesAlone } from '../config/launches.ts'

function problemAt(file: string, line: number, where: string, message: string, fix: string): Problem {
  return { file, line, column: 1, where, message, fix, excerpt: '' }
}

/** A config's name and addresses against every other launch that can be read now: the problems, or none. */
function clashesWithOthers(
  place: { root: string; env: Env },
  slug: string,
  configFile: string,
  config: PageConfig,
): Problem[] {
  const others = loadLaunchesAlone(
    findLaunches(place.root, place.env).filter(
      (source) => path.resolve(source.configFile) !== path.resolve(configFile),
    ),
  ).launches
  const self = { configFile, publicDir: publicDirFor(configFile), isDefault: false, slug, config }
  const clashes = checkLaunchSet([...others, self]).filter((error) => error.file === configFile)
  return clashes.map((error) => {
    const line = Number(/:(\d+)\n/.exec(error.problems[0] ?? '')?.[1] ?? 1)
    return problemAt(
      configFile,
      line,
      'launch',
      error.problems[0] ?? error.message,
      'Give this launch its own name and web address.',
    )
  })
}

/**
 * What the Node server publishes with (src/server/site/publisher.ts): the real checker (the same words as `npm run
 * validate`, plus the checks between launches) and the real build of one launch (buildSite: prerender, the form's
 * validator, image variants, the function's contract), given to the server by its entry, since the server imports
 * neither.
 */
export function createLaunchBuilder(
  root = process.cwd(),
  env: Env = process.env,
  settings: BuildSettings = readBuildSettings(env),
): LaunchBuilder {
  return {
    check(slug, configFile, text) {
      const problems = checkPageConfigText(text, configFile, publicDirFor(configFile))
      if (problems.length > 0) return { ok: false, problems }
      const config = JSON.parse(text.replace(/^\uFEFF/, '')) as PageConfig
      if (config.launch.slug !== slug) {
        return {
          ok: false,
          problems: [
            problemAt(
              configFile,
              1,
              'launch.slug',
              `This config is launch "${config.launch.slug}", not "${slug}".`,
              `Publish it as "${config.launch.slug}", or write "${slug}" in launch.slug.`,
            ),
          ],
        }
      }
      const clashes = clashesWithOthers({ root, env }, slug, configFile, config)
      if (clashes.length > 0) return { ok: false, problems: clashes }
      return {
        ok: true,
        config: {
          siteName: config.site.name,
          // Loaded on the first publish: Vite and the build steps weigh seconds of start-up the server does not need.
          build: async (outDir) => (await import('../cli/build.ts')).buildSite(configFile, outDir, settings, config),
          // The Supabase function reads its launches from the bundle: it gets the published form too.
          published: () => {
            const { entries, defaultLaunch } = readBundleEntries(root)
            entries.set(slug, functionLaunchOf(config))
            const stated = defaultLaunch !== undefined && entries.has(defaultLaunch) ? defaultLaunch : slug
            writeFunctionBundleEntries([...entries.values()], stated, root)
          },
        },
      }
    },
    fileFor(slug) {
      return env.PAGE_CONFIG || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)
        ? undefined
        : path.join(launchesDirOf(root), slug, 'page.config.json')
    },
    find(slug): LaunchFolder | undefined {
      if (env.PAGE_CONFIG || !/^[a-z0-9][a-z0-9-]{0,62}$/.test(slug)) return undefined
      const configFile = path.join(launchesDirOf(root), slug, 'page.config.json')
      if (!existsSync(configFile)) return undefined
      let siteName = slug
      let addresses: string[] | undefined
      try {
        const stated = JSON.parse(readFileSync(configFile, 'utf8').replace(/^\uFEFF/, '')) as Partial<PageConfig>
        if (typeof stated.site?.name === 'string') siteName = stated.site.name
        if (typeof stated.seo?.canonicalUrl === 'string' && URL.canParse(stated.seo.canonicalUrl))
          addresses = [new URL(stated.seo.canonicalUrl).origin]
      } catch {
        // A config that cannot be read yet still has its folder's name.
      }
      return { slug, configFile, isDefault: false, siteName, addresses }
    },
  }
}
