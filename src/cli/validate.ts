import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkPageConfigFile, formatProblems } from '../config/check-page-config.ts'
import { resolvePageConfigPath } from '../config/load-page-config.ts'

/**
 * `npm run validate [path]`: checks a page config (default: PAGE_CONFIG, else ./page.config.json) and
 * prints "✓ <file> is valid" or every problem in plain words. Returns the exit code: 0 valid, 1 otherwise.
 */
export function runValidate(args: string[], env: Record<string, string | undefined> = process.env): number {
  const file = args[0] ? path.resolve(args[0]) : resolvePageConfigPath(env)
  const relative = path.relative(process.cwd(), file)
  const shown = relative && !relative.startsWith('..') ? relative : file
  const { problems } = checkPageConfigFile(file)
  if (problems.length === 0) {
    console.log(`✓ ${shown} is valid`)
    return 0
  }
  console.error(formatProblems(problems))
  console.error(
    `\n✖ ${shown}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}. Fix ${
      problems.length === 1 ? 'it' : 'them'
    } and run npm run validate again (docs/editing-guide.md explains each kind).`,
  )
  return 1
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
