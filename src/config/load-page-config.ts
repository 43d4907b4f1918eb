import path from 'node:path'
import type { PageConfig } from '../../schema/page-config.ts'
import { checkPageConfigFile, formatProblem, type Problem } from './check-page-config.ts'

export { publicDirFor } from './check-page-config.ts'

/**
 * A page config that cannot be used: the file, and each problem in plain words (each string is one problem:
 * "file:line:column", the marked excerpt, what is wrong and what to do). `details` has them as data.
 */
export class PageConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
    readonly details: Problem[] = [],
  ) {
    super(`${file}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}\n\n${problems.join('\n\n')}`)
    this.name = 'PageConfigError'
    // The problem is in the config file, not in the code: a stack trace would only bury the message
    // (the dev server's overlay and terminal print `stack` when there is one).
    this.stack = ''
  }
}

/** The absolute path of the page config: PAGE_CONFIG if set, else ./page.config.json in `cwd`. */
export function resolvePageConfigPath(
  env: Record<string, string | undefined> = process.env,
  cwd = process.cwd(),
): string {
  return path.resolve(cwd, env.PAGE_CONFIG || 'page.config.json')
}

/**
 * Reads and checks a page config (JSON, schema, images in publicDirFor(file), anchors, contacts, the form);
 * throws PageConfigError listing every problem. Reads the file on every call, so a fixed file is picked up.
 */
export function loadPageConfig(file: string): PageConfig {
  const { config, problems } = checkPageConfigFile(file)
  if (!config) throw new PageConfigError(file, problems.map(formatProblem), problems)
  return config
}
