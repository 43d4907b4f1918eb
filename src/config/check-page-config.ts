import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { Problem } from '../../schema/config-problem.ts'
import { pageConfigSchema, type PageConfig } from '../../schema/page-config.ts'
import { checkConfigSemantics } from './config-semantics.ts'
import { configVersionFinding, launchSlugFinding } from './config-version.ts'
import { describePath, type Finding } from './describe.ts'
import { explainAjvErrors } from './explain-ajv-errors.ts'
import { excerpt, findDuplicateKeys, locate, parseJsonSource, type JsonSource } from './json-source.ts'

// ajv-formats is CommonJS; under Node ESM its default export arrives wrapped.
const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule

/** One thing wrong with a page config (schema/config-problem.ts: the server's publisher reports it too). */
export type { Problem }

/** The public/ folder that holds a config's images: beside the config file. */
export function publicDirFor(configFile: string): string {
  return path.join(path.dirname(configFile), 'public')
}

let validatePage: ValidateFunction | undefined

/**
 * Every problem in a page config's text: JSON syntax (only the first, as parsing stops there); for a file written
 * for another version of the config format, only that (with the command that updates it); else schema errors and
 * the checks beyond the schema (images in `publicDir`, anchors, addresses, the form, a launch's name against its
 * folder: `file` matters), in file order.
 */
export function checkPageConfigText(text: string, file: string, publicDir: string): Problem[] {
  return inspect(text, file, publicDir).problems
}

/** Reads and checks a config file (images in publicDirFor(file)); `config` is set only when there is no problem. */
export function checkPageConfigFile(file: string): { config?: PageConfig; problems: Problem[] } {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    return {
      problems: [
        {
          file,
          line: 1,
          column: 1,
          where: 'the file',
          message: missing
            ? 'There is no file here.'
            : `The file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'unknown error'}).`,
          fix: missing
            ? 'Check the path. PAGE_CONFIG (or the path you gave) must name a page.config.json file.'
            : 'Check that the file is readable and is not a folder.',
          excerpt: '',
        },
      ],
    }
  }
  const { data, problems } = inspect(text, file, publicDirFor(file))
  return problems.length ? { problems } : { config: data as PageConfig, problems }
}

function inspect(rawText: string, file: string, publicDir: string): { data?: unknown; problems: Problem[] } {
  // Some editors on Windows save a byte-order mark, which JSON.parse rejects; it is invisible, so accept it.
  const text = rawText.replace(/^\uFEFF/, '')
  const parsed = parseJsonSource(text)
  if ('syntax' in parsed) {
    const { span, message, fix } = parsed.syntax
    const lines = text.split(/\r?\n/)
    return {
      problems: [
        {
          file,
          line: span.start.line,
          column: span.start.column,
          where: 'the file',
          message: `The file is not valid JSON. ${message}`,
          fix,
          excerpt: excerpt(lines, span),
        },
      ],
    }
  }
  const { source } = parsed
  const data: unknown = JSON.parse(text)

  // A file written for another version of the format: every other message would come from the old format.
  const version = configVersionFinding(data, source, file)
  if (version) return { data, problems: [toProblem(version, source, file)] }

  const findings: Finding[] = findDuplicateKeys(source).map(({ path: at, key, first, again }) => ({
    at: [...at, key],
    span: again,
    message: `${describePath(at)} has "${key}" twice (${
      first.start.line === again.start.line
        ? `both on line ${again.start.line}`
        : `lines ${first.start.line} and ${again.start.line}`
    }); only the last one counts.`,
    fix: 'Delete the one you do not want.',
  }))

  validatePage ??= addFormats(new Ajv({ allErrors: true, strict: false, verbose: true })).compile(pageConfigSchema)
  const schemaFindings = validatePage(data) ? [] : explainAjvErrors(validatePage.errors ?? [], data)
  findings.push(...schemaFindings)

  // The schema already speaks about these spots; a second message about the same place would only repeat it.
  const spoken = new Set(findings.map((f) => describePath(f.at)))
  const slug = launchSlugFinding(data, file)
  const beyond = [...checkConfigSemantics(data, publicDir), ...(slug ? [slug] : [])]
  findings.push(...beyond.filter((f) => !spoken.has(describePath(f.at))))

  const problems = findings.map((finding) => toProblem(finding, source, file))
  problems.sort((a, b) => a.line - b.line || a.column - b.column)
  return { data, problems }
}

function toProblem(finding: Finding, source: JsonSource, file: string): Problem {
  const span = finding.span ?? locate(source, finding.at, finding.onKey).span
  return {
    file,
    line: span.start.line,
    column: span.start.column,
    where: describePath(finding.at),
    // Paths start most messages; the whole file's path is "the file", which starts a sentence too.
    message: finding.message.replace(/^the file\b/, 'The file'),
    fix: finding.fix,
    excerpt: excerpt(source.lines, span),
  }
}

/** A path as a person typed it: relative to the current folder when inside it. */
function displayFile(file: string): string {
  const relative = path.relative(process.cwd(), file)
  return relative && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file
}

/** One problem as text: "file:line:column", the marked excerpt, what is wrong and what to do. */
export function formatProblem(problem: Problem): string {
  const lines = [`${displayFile(problem.file)}:${problem.line}:${problem.column}`]
  if (problem.excerpt) lines.push(problem.excerpt.replace(/^/gm, '  '))
  lines.push(`  ${problem.message}`, `  What to do: ${problem.fix}`)
  return lines.join('\n')
}

/** Every problem as text, separated by blank lines, in the order given. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems.map(formatProblem).join('\n\n')
}
