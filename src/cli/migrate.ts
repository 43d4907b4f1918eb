import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { currentConfigVersion } from '../../schema/page-config.ts'
import { migrateConfigText } from '../config/config-migrations.ts'
import { migrateCommandFor } from '../config/config-version.ts'
import { excerpt, locate, parseJsonSource } from '../config/json-source.ts'
import { brokerageNameFinding, isRegisteredBrokerageName } from '../config/legal-checks.ts'
import { LaunchesError } from '../config/launches.ts'
import { rewriteReplyPlaceholders } from '../config/reply-placeholders-fix.ts'
import { writeFileAtomically } from '../config/config-file.ts'
import { launchesFromArgs, shownFile } from './launch-args.ts'
import { moveDocumentFiles, moveReplyDocuments } from './db/reply-documents.ts'
import path from 'node:path'

const usage = `Usage: npm run migrate [-- --launch <name> | <path of a page.config.json>] [--check]

Brings page configs written for an older version of the config format to version ${currentConfigVersion}, keeping
your text, order and layout, takes out of the reply what a visitor typed (a placeholder such as {message}), and
makes the reply's links to the launch's own PDFs (files in its public/ folder) tracked documents, moved to documents/
(links to other sites stay plain links).
A site.brokerage without the word "Brokerage" it cannot fix: it says where to write the registered name, and exits 1.
Without --launch or a path: every launch (page.config.json and launches/*/).
  --launch <name>   only that launch
  --check           change nothing; exit 1 when a file needs migrating`

/** What happened to one file, as the line(s) printed for it; `failed` when the command must exit 1. */
type Outcome = { text: string; failed: boolean; changed?: boolean }

/**
 * What migrate cannot write itself: a registered brokerage name (site.brokerage with the word "Brokerage"). It only
 * says where and what to write; undefined when the name is fine (or the file is not one to judge).
 */
function brokerageGuidance(text: string, shown: string): string | undefined {
  const parsed = parseJsonSource(text.replace(/^\uFEFF/, ''))
  if ('syntax' in parsed) return undefined
  const data = JSON.parse(parsed.source.text) as { site?: { brokerage?: unknown } }
  const value = data.site?.brokerage
  if (typeof value === 'string' && isRegisteredBrokerageName(value)) return undefined
  const at = value === undefined ? ['site'] : ['site', 'brokerage']
  const { span } = locate(parsed.source, at, value === undefined)
  const finding = brokerageNameFinding(['site', 'brokerage'], value ?? '')
  const message =
    value === undefined
      ? 'site has no "brokerage": the registered name of the brokerage that runs the site.'
      : finding.message
  return `✖ ${shown}:${span.start.line}:${span.start.column}\n${excerpt(parsed.source.lines, span).replace(/^/gm, '  ')}\n  ${message}\n  What to do: ${finding.fix} migrate cannot know the registered name: write it, then run npm run migrate again.`
}

/** migrateFile, then what the file still needs that only a person can write (the brokerage's registered name). */
function migrateAndGuide(configFile: string, folder: string | undefined, check: boolean): Outcome {
  const outcome = migrateFile(configFile, folder, check)
  let text: string
  try {
    text = readFileSync(configFile, 'utf8')
  } catch {
    return outcome
  }
  const guidance = brokerageGuidance(text, shownFile(configFile))
  if (!guidance) return outcome
  const head = outcome.text.startsWith('✓') && !outcome.changed ? '' : `${outcome.text}\n`
  return { ...outcome, text: `${head}${guidance}`, failed: true }
}

function migrateFile(configFile: string, folder: string | undefined, check: boolean): Outcome {
  const shown = shownFile(configFile)
  let text: string
  try {
    text = readFileSync(configFile, 'utf8')
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT'
    return {
      text: `✖ ${shown}: ${missing ? 'there is no file here.' : `the file cannot be read (${(error as NodeJS.ErrnoException).code}).`}`,
      failed: true,
    }
  }
  const result = migrateConfigText(text, folder === undefined ? {} : { folder })
  switch (result.kind) {
    case 'current':
    case 'migrated': {
      const reply = rewriteReplyPlaceholders(result.kind === 'migrated' ? result.text : text)
      const lines = reply.changes.map((change) => `    ${shown}:${change.line}: ${change.description}`)
      const documents = moveReplyDocuments(reply.text, path.dirname(path.resolve(configFile)))
      if (result.kind === 'current' && lines.length === 0 && !documents) {
        return { text: `✓ ${shown} is current (config format version ${result.version})`, failed: false }
      }
      if (check) {
        const needs = [
          ...(result.kind === 'migrated' ? [`is written for version ${result.from} of the config format`] : []),
          ...(lines.length > 0
            ? [
                `has a reply that copies what a visitor typed (${reply.changes.map((c) => `line ${c.line}`).join(', ')})`,
              ]
            : []),
          ...(documents
            ? [
                `has a reply that links ${documents.moves.length === 1 ? 'a PDF' : `${documents.moves.length} PDFs`} of its public/ folder (anyone can download them), not tracked documents`,
              ]
            : []),
        ]
        const to = result.kind === 'migrated' ? ` updates it to version ${result.to}` : ' rewrites it'
        return { text: `✖ ${shown} ${needs.join(' and ')}; ${migrateCommandFor(configFile)}${to}.`, failed: true }
      }
      writeFileAtomically(configFile, documents?.text ?? reply.text)
      if (documents) moveDocumentFiles(path.dirname(path.resolve(configFile)), documents.moves)
      const head =
        result.kind === 'migrated'
          ? [
              `✓ ${shown}: updated from version ${result.from} to ${result.to} of the config format`,
              ...result.changes.map((change) => `    ${change}`),
            ]
          : []
      const replyHead =
        lines.length > 0
          ? [
              `✓ ${shown}: the reply no longer copies what a visitor typed (anyone could have made the site send their text to any address); reread these:`,
              ...lines,
            ]
          : []
      const documentsHead = documents
        ? [
            `✓ ${shown}: the reply's own PDFs are tracked documents now (each registrant gets a personal link; the leads page shows who opened it):`,
            ...documents.changes.map((change) => `    ${change}`),
          ]
        : []
      return { text: [...head, ...replyHead, ...documentsHead].join('\n'), failed: false, changed: true }
    }
    case 'newer':
      return {
        text: `✖ ${shown} is written for version ${result.version} of the config format, but this code reads only up to version ${currentConfigVersion}: update the code (git pull, then npm install). The file was left as it is.`,
        failed: true,
      }
    case 'unreadable': {
      if (!result.syntax) return { text: `✖ ${shown}: ${result.reason} Nothing was written.`, failed: true }
      const { span, fix } = result.syntax
      const spot = excerpt(text.replace(/^\uFEFF/, '').split(/\r?\n/), span).replace(/^/gm, '  ')
      return {
        text: `✖ ${shown}:${span.start.line}:${span.start.column}\n${spot}\n  ${result.reason}\n  What to do: ${fix} Then run npm run migrate again. Nothing was written.`,
        failed: true,
      }
    }
  }
}

/**
 * `npm run migrate [-- --launch <slug> | <file>] [--check]`: rewrites every launch's config (or one) to the
 * current config format and takes the visitor's free text out of its reply (issue 21, item 2), printing what
 * changed in each file, with its line, or that it is current. Returns the exit code: 1 when
 * a file could not be migrated, or with --check when one needs it; 2 for a usage mistake.
 */
export function runMigrate(argv: string[], env: Record<string, string | undefined> = process.env): number {
  let options: { launch?: string; check?: boolean; help?: boolean }
  let positionals: string[]
  try {
    ;({ values: options, positionals } = parseArgs({
      args: argv,
      options: { launch: { type: 'string' }, check: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
    }))
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`)
    return 2
  }
  if (options.help) {
    console.log(usage)
    return 0
  }
  if (positionals.length > 1 || (positionals.length === 1 && options.launch !== undefined)) {
    console.error(`Give one launch (--launch <name>) or one path, not both or several.\n\n${usage}`)
    return 2
  }
  let sources
  try {
    sources = launchesFromArgs({ launch: options.launch, file: positionals[0] }, process.cwd(), env)
  } catch (error) {
    if (!(error instanceof LaunchesError)) throw error
    console.error(error.errors.map((e) => e.problems.join('\n')).join('\n'))
    return 1
  }
  const outcomes = sources.map((source) => migrateAndGuide(source.configFile, source.folder, options.check === true))
  for (const outcome of outcomes) (outcome.failed ? console.error : console.log)(outcome.text)
  if (!options.check && outcomes.some((outcome) => outcome.changed)) {
    console.log('\nCheck the result with npm run validate.')
  }
  return outcomes.some((outcome) => outcome.failed) ? 1 : 0
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A person reads this output: whatever goes wrong, plain words and exit 1, never a stack trace.
  try {
    process.exitCode = runMigrate(process.argv.slice(2))
  } catch (error) {
    console.error(`migrate could not finish: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 1
  }
}
