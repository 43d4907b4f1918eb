import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { checkPageConfigFile, formatProblems } from '../config/check-page-config.ts'
import { checkLaunchSet, LaunchesError, type Launch } from '../config/launches.ts'
import { launchesFromArgs, shownFile } from './launch-args.ts'

const usage = `Usage: npm run validate [-- --launch <name> | <path of a page.config.json>]

Checks every launch (page.config.json and launches/*/), or only the one named, and prints every problem with
its file, line and what to do.`

/**
 * `npm run validate [-- --launch <slug> | path]`: checks every launch's config (or one: the slug's, the path's; with
 * PAGE_CONFIG set and no argument, that file), then that no two launches share a name or a web address. Prints
 * "✓ <file> is valid" or every problem in plain words under its file. Returns the exit code: 0 valid, 1 otherwise.
 */
export function runValidate(args: string[], env: Record<string, string | undefined> = process.env): number {
  let launch: string | undefined
  let positionals: string[]
  try {
    ;({
      values: { launch },
      positionals,
    } = parseArgs({ args, options: { launch: { type: 'string' } }, allowPositionals: true }))
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`)
    return 1
  }
  if (positionals.length > 1 || (positionals.length === 1 && launch !== undefined)) {
    console.error(`Give one launch (--launch <name>) or one path, not both or several.\n\n${usage}`)
    return 1
  }
  let sources
  try {
    sources = launchesFromArgs({ launch, file: positionals[0] }, process.cwd(), env)
  } catch (error) {
    if (!(error instanceof LaunchesError)) throw error
    console.error(error.errors.map((e) => e.problems.join('\n')).join('\n'))
    return 1
  }

  const valid: Launch[] = []
  let broken = 0
  sources.forEach((source, i) => {
    const shown = shownFile(source.configFile)
    const { config, problems } = checkPageConfigFile(source.configFile)
    if (config) {
      console.log(`✓ ${shown} is valid`)
      valid.push({ ...source, slug: config.launch.slug, config })
      return
    }
    broken++
    console.error(`${i > 0 ? '\n' : ''}${formatProblems(problems)}`)
    console.error(
      `\n✖ ${shown}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}. Fix ${
        problems.length === 1 ? 'it' : 'them'
      } and run npm run validate again (docs/editing-guide.md explains each kind).`,
    )
  })
  const clashes = checkLaunchSet(valid)
  for (const clash of clashes) console.error(`\n✖ ${clash.problems.join('\n')}`)
  if (sources.length > 1) {
    const parts = [
      ...(broken ? [`${broken} of ${sources.length} launches ${broken === 1 ? 'has' : 'have'} problems`] : []),
      ...(clashes.length
        ? [
            clashes.length === 1
              ? 'two launches share a name or an address'
              : `${clashes.length} clashes between launches`,
          ]
        : []),
    ]
    if (parts.length === 0) console.log(`\n✓ All ${sources.length} launches are valid`)
    else console.error(`\n✖ ${parts.join('; ').replace(/^t/, 'T')}.`)
  }
  return broken + clashes.length === 0 ? 0 : 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A person reads this output: whatever goes wrong, plain words and exit 1, never a stack trace.
  const fail = (error: unknown): never => {
    console.error(`validate could not finish: ${error instanceof Error ? error.message : String(error)}`)
    process.exit(1)
  }
  process.on('uncaughtException', fail)
  try {
    process.exitCode = runValidate(process.argv.slice(2))
  } catch (error) {
    fail(error)
  }
}
