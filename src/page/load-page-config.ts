import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import { pageConfigSchema, type PageConfig } from '../../schema/page-config.ts'

const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as typeof addFormatsModule

/** A page config that cannot be used: the file, and each problem in plain words. */
export class PageConfigError extends Error {
  constructor(
    readonly file: string,
    readonly problems: string[],
  ) {
    super(`${file}: ${problems.length} problem(s)\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'PageConfigError'
  }
}

/** The absolute path of the page config: PAGE_CONFIG if set, else ./page.config.json in `cwd`. */
export function resolvePageConfigPath(env: Record<string, string | undefined> = process.env, cwd = process.cwd()): string {
  return path.resolve(cwd, env.PAGE_CONFIG || 'page.config.json')
}

/** The public/ folder that holds a config's images: beside the config file. */
export function publicDirFor(configFile: string): string {
  return path.join(path.dirname(configFile), 'public')
}

let compiled: ReturnType<Ajv['compile']> | undefined

/** Reads, parses and validates a page config; throws PageConfigError listing every problem. */
export function loadPageConfig(file: string): PageConfig {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    throw new PageConfigError(file, [`the file cannot be read: check that ${file} exists.`])
  }
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (error) {
    throw new PageConfigError(file, [`it is not valid JSON: ${(error as Error).message}`])
  }
  compiled ??= addFormats(new Ajv({ allErrors: true, strict: false })).compile(pageConfigSchema)
  if (!compiled(data)) {
    throw new PageConfigError(
      file,
      (compiled.errors ?? []).map((e) => `${e.instancePath || '(top level)'} ${e.message ?? 'is invalid'}`),
    )
  }
  return data as PageConfig
}
