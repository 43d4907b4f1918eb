import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PageConfig } from '../../schema/page-config.ts'
import { buildSite } from '../../src/cli/build.ts'
import { readBuildSettings } from '../../src/server/env.ts'

// A document has no public address (issue 24): the build of the default launch, which lists two PDFs, writes neither
// of them (nor their bytes inside another file) anywhere in the site it builds.

const out = mkdtempSync(path.join(tmpdir(), 'documents-not-built-'))
const config = JSON.parse(readFileSync('page.config.json', 'utf8')) as PageConfig
const documents = config.documents!.list.map((d) => ({ file: d.file, bytes: readFileSync(d.file) }))

/** Every file under `dir`, hidden folders (.phases, .versions) too. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry)
    return statSync(full).isDirectory() ? filesUnder(full) : [full]
  })
}

beforeAll(async () => {
  await buildSite(path.resolve('page.config.json'), out, readBuildSettings({}))
}, 300_000)
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('the built site of a launch with documents', () => {
  it("holds no PDF and none of the documents' bytes, in any file", () => {
    expect(documents.length).toBeGreaterThanOrEqual(2)
    const files = filesUnder(out)
    expect(files.some((file) => file.endsWith('index.html'))).toBe(true)
    expect(files.filter((file) => /\.pdf$/i.test(file))).toEqual([])
    for (const file of files) {
      const built = readFileSync(file)
      for (const document of documents) {
        // The middle of the PDF: its header alone (%PDF-1.4) could be any PDF's.
        const middle = document.bytes.subarray(
          Math.floor(document.bytes.length / 3),
          Math.floor(document.bytes.length / 3) + 64,
        )
        expect(built.includes(middle), `${path.relative(out, file)} holds ${document.file}`).toBe(false)
      }
      // Nor does a served file name it: the documents' part of the config stays with the server's contract
      // (.launch.json,
      // a dotfile the static host never serves).
      if (
        path
          .relative(out, file)
          .split(path.sep)
          .some((part) => part.startsWith('.') && part !== '.phases')
      )
        continue
      for (const document of documents)
        expect(built.includes(Buffer.from(document.file)), `${path.relative(out, file)} names ${document.file}`).toBe(
          false,
        )
    }
  })
})
