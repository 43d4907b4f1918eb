import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { describePath } from '../config/describe.ts'
import { LaunchesError } from '../config/launches.ts'
import { createLaunch, LaunchError, placeholderOrigin, type Launch } from '../config/new-launch.ts'
import { launchesFromArgs } from './launch-args.ts'

// `npm run new-launch -- <name> [--from <launch>]`: makes launches/<name>/ as a copy (src/config/new-launch.ts) and
// prints the checklist of what belongs to the old development.

/** The checklist and next steps as printed by `npm run new-launch`. */
export function formatLaunch(launch: Launch, root: string, sourceConfig: string): string {
  const rel = (file: string): string => path.relative(root, file).split(path.sep).join('/')
  const config = rel(launch.configFile)
  const lines = [
    `✓ Created ${config} (a copy of ${rel(sourceConfig)})`,
    `✓ Copied ${launch.copiedFiles} file${launch.copiedFiles === 1 ? '' : 's'} into ${rel(launch.publicDir)}/`,
    '',
    `Now change everything that belongs to the new development. In ${config}:`,
  ]
  let group = ''
  const width = Math.max(0, ...launch.checklist.map((item) => describePath(item.path).length))
  for (const item of launch.checklist) {
    if (item.group !== group) {
      group = item.group
      lines.push('', `  ${group}`)
    }
    const value = item.value.length > 70 ? `${item.value.slice(0, 67)}…` : item.value
    lines.push(`    [ ] line ${String(item.line).padEnd(4)} ${describePath(item.path).padEnd(width)}  ${value}`)
  }
  const oldName = launch.checklist.find((item) => item.path.join('.') === 'site.name')
  if (oldName) lines.push('', `  Then search the file for "${oldName.value}" to catch any mention left in the copy.`)
  const slug = path.basename(launch.dir)
  const address = launch.checklist.find((item) => item.path.join('.') === 'seo.canonicalUrl')
  if (address?.value.startsWith(placeholderOrigin(slug))) {
    lines.push(
      '',
      `  Its web address is ${address.value} for now, so it never takes the other launch's: write the real one in`,
      '  seo.canonicalUrl (and the addresses under seo.jsonLd) when you know it.',
    )
  }
  const commands: [string, string][] = [
    [`npm run edit -- --launch ${slug}`, 'edit it with the page beside the text'],
    [`npm run validate -- --launch ${slug}`, 'check it: every problem with its line and what to do'],
    [`npm run dev -- --launch ${slug}`, 'see it in the browser while you edit'],
    ['npm run build', `build every launch (this one into dist/${slug}/)`],
    ['npm start', `serve every launch: this one at http://${slug}.localhost:3000`],
  ]
  const commandWidth = Math.max(...commands.map(([command]) => command.length))
  lines.push(
    '',
    'When you are done (docs/editing-guide.md explains each step and each error):',
    ...commands.map(([command, what]) => `  ${command.padEnd(commandWidth)}   ${what}`),
  )
  return lines.join('\n')
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // A person reads this output: plain words and exit 1 on any failure, never a stack trace.
  const fail = (message: string): never => {
    console.error(message)
    process.exit(1)
  }
  const usage = 'Usage: npm run new-launch -- <name> [--from <launch>]   e.g. npm run new-launch -- maple-hollow'
  let name: string | undefined
  let from: string | undefined
  try {
    const { values, positionals } = parseArgs({
      args: process.argv.slice(2),
      options: { from: { type: 'string' } },
      allowPositionals: true,
    })
    if (positionals.length !== 1) fail(usage)
    name = positionals[0]
    from = values.from
  } catch (error) {
    fail(`${(error as Error).message}\n${usage}`)
  }
  const root = process.cwd()
  try {
    // The default launch (PAGE_CONFIG's file when set) unless --from names another.
    const source = launchesFromArgs({ launch: from }, root)[0]!.configFile
    const launch = createLaunch(name!, root, source)
    console.log(formatLaunch(launch, root, source))
  } catch (error) {
    if (error instanceof LaunchesError) fail(error.errors.map((e) => e.problems.join('\n')).join('\n'))
    fail(error instanceof LaunchError ? error.message : `new-launch could not finish: ${(error as Error).message}`)
  }
}
