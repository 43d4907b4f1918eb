import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { checkPageConfigFile } from '../../src/config/check-page-config.ts'
import { replaceOnce } from '../fixtures/second-launch.ts'

// Issue 24: the reply's documents were labels with public URLs; npm run migrate makes the launch's own PDFs tracked
// documents (moved out of public/, where anyone could download them) and keeps links to other sites as plain links.

const root = path.resolve(import.meta.dirname, '../..')
const tsx = path.join(root, 'node_modules/.bin/tsx')
const current = readFileSync(path.join(root, 'page.config.json'), 'utf8')
const documentsBlock = current.slice(current.indexOf('  "documents": {'), current.indexOf('  "phases": {'))

/** The default launch as written before issue 24: its PDFs in public/documents/, linked from the reply. */
const before = replaceOnce(
  replaceOnce(current, documentsBlock, ''),
  '    "documentsHeading": "While you wait, have a look:",\n',
  `    "documentsHeading": "While you wait, have a look:",
    "documents": [
      { "label": "Price list", "url": "https://bramblewood.example.com/documents/price-list.pdf" },
      { "label": "Floor plans", "url": "https://bramblewood.example.com/documents/floor-plans.pdf" },
      { "label": "Builder's brochure", "url": "https://builder.example.org/brochure.pdf" }
    ],
`,
)

function project(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'migrate-documents-'))
  writeFileSync(path.join(dir, 'page.config.json'), before.replace('"../../../schema/', '"./schema/'))
  cpSync(path.join(root, 'public'), path.join(dir, 'public'), { recursive: true })
  mkdirSync(path.join(dir, 'public', 'documents'))
  for (const name of ['price-list.pdf', 'floor-plans.pdf'])
    cpSync(path.join(root, 'documents', name), path.join(dir, 'public', 'documents', name))
  return dir
}

const migrate = (dir: string, ...args: string[]) =>
  spawnSync(tsx, [path.join(root, 'src/cli/migrate.ts'), path.join(dir, 'page.config.json'), ...args], {
    cwd: dir,
    encoding: 'utf8',
  })

describe("npm run migrate and the reply's documents", () => {
  it("makes links to the launch's own PDFs tracked documents, moved out of public/, and keeps another site's link", () => {
    const dir = project()
    const check = migrate(dir, '--check')
    expect(check.status).toBe(1)
    expect(check.stderr).toContain('links 2 PDFs of its public/ folder')

    const run = migrate(dir)
    expect(run.status, run.stderr).toBe(0)
    expect(run.stdout).toContain(
      'reply.documents: "Price list" (https://bramblewood.example.com/documents/price-list.pdf) is now a tracked document, documents/price-list.pdf',
    )
    for (const name of ['price-list.pdf', 'floor-plans.pdf']) {
      expect(existsSync(path.join(dir, 'public', 'documents', name))).toBe(false)
      expect(
        readFileSync(path.join(dir, 'documents', name)).equals(readFileSync(path.join(root, 'documents', name))),
      ).toBe(true)
    }
    const config = JSON.parse(readFileSync(path.join(dir, 'page.config.json'), 'utf8')) as PageConfig
    // Realtors have their own list in this config: the buyers' documents stay the buyers'.
    expect(config.documents?.list).toEqual([
      { title: 'Price list', file: 'documents/price-list.pdf', audience: 'buyers' },
      { title: 'Floor plans', file: 'documents/floor-plans.pdf', audience: 'buyers' },
    ])
    expect(config.reply?.documents).toEqual([
      { label: "Builder's brochure", url: 'https://builder.example.org/brochure.pdf' },
    ])
    expect(checkPageConfigFile(path.join(dir, 'page.config.json')).problems).toEqual([])
    // Running it again changes nothing.
    const again = migrate(dir, '--check')
    expect(again.status, again.stderr).toBe(0)
  })
})
