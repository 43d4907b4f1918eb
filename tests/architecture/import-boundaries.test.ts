import { readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sectionSchemas } from '../../schema/sections.ts'

// Code is laid out by where it runs (STYLE.md §2). These rules keep it so: a file that imports across a line
// fails here with the file, the import and the rule it breaks.

/** The room a file lives in, by its path relative to the repository. */
export function roomOf(file: string): string {
  const parts = file.split('/')
  if (parts[0] === 'schema') return 'schema'
  if (parts[0] === 'supabase') return 'edge'
  // The editor runs in two places: its server in Node, its page and preview frames in the browser.
  if (parts[0] === 'src' && parts[1] === 'editor' && (parts[2] === 'client' || parts[2] === 'preview')) return 'editor-client'
  // So does the studio: its server part in Node, its browser part (src/studio/client) in the browser.
  if (parts[0] === 'src' && parts[1] === 'studio' && parts[2] === 'client') return 'studio-client'
  if (parts[0] === 'src' && parts.length > 2) return parts[1]!
  if (file === 'src/entry-client.tsx') return 'page'
  if (parts[0] === 'src') return 'entry'
  return 'other'
}

const browserRooms = ['page', 'sections', 'ui', 'form', 'editor-client', 'studio-client']
const nodeOnly = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)])

/** What each room may import from the project's own rooms (imports within a room are always fine). */
const allowed: Record<string, string[]> = {
  page: ['schema', 'sections', 'ui', 'form', 'entry'],
  sections: ['schema', 'ui', 'form', 'page'],
  ui: ['schema', 'page'],
  form: ['schema', 'page', 'ui'],
  schema: [],
  config: ['schema'],
  server: ['schema'],
  edge: ['schema', 'server'],
  // The editor's server shares only the protocol's types with its page.
  editor: ['schema', 'config', 'build', 'server', 'editor-client', 'studio', 'studio-client'],
  // `npm run edit` is the studio's editing view served locally: its page shares the studio's editing modules.
  'editor-client': ['schema', 'page', 'ui', 'sections', 'form', 'entry', 'studio-client'],
  'studio-client': ['schema', 'page', 'ui', 'sections', 'form', 'entry'],
}

/** Single files a room may import beyond its rules: they import nothing a browser lacks (checked by their own room's rules). */
const allowedFiles: Record<string, string[]> = {
  // The protocol's types, shared with the studio's server part.
  'studio-client': ['src/studio/protocol.ts', 'src/config/json-edit.ts', 'src/config/json-source.ts'],
}

/** Site code never imports the editor or the studio: none of it may reach the public page's bundle. */
const siteRooms = ['page', 'sections', 'ui', 'form', 'config', 'build', 'server', 'schema']

/** The import specifiers of a TypeScript source: static imports and re-exports, dynamic import(). */
export function importsOf(source: string): string[] {
  const found: string[] = []
  const patterns = [/^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm, /^\s*import\s*['"]([^'"]+)['"]/gm, /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g]
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!)
  return found
}

/** The rule a file's imports break, one line each (empty when it keeps to its room). */
export function boundaryViolations(file: string, source: string): string[] {
  const room = roomOf(file)
  const problems: string[] = []
  for (const spec of importsOf(source)) {
    if (browserRooms.includes(room) && nodeOnly.has(spec)) {
      problems.push(`${file} imports '${spec}': browser code (src/${room}) runs in the browser, which has no Node modules.`)
      continue
    }
    if (room === 'config' && (spec === 'react' || spec.startsWith('react-dom'))) {
      problems.push(`${file} imports '${spec}': src/config runs in Node and renders nothing.`)
      continue
    }
    if (!spec.startsWith('.')) continue
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec))
    const targetRoom = roomOf(target)
    const rules = allowed[room]
    if (siteRooms.includes(room) && ['editor', 'editor-client', 'studio', 'studio-client'].includes(targetRoom)) {
      problems.push(`${file} imports '${spec}' (src/${target.split('/')[1]}): the site must not depend on the editor or the studio.`)
      continue
    }
    if (!rules || targetRoom === room || allowedFiles[room]?.includes(target)) continue
    if (!rules.includes(targetRoom)) {
      problems.push(`${file} imports '${spec}' (src/${targetRoom}): ${room} may import only from ${rules.length ? rules.join(', ') : 'itself'}.`)
    }
  }
  return problems
}

function listSources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.posix.join(dir, entry)
    if (statSync(full).isDirectory()) return listSources(full)
    return /\.tsx?$/.test(entry) ? [full] : []
  })
}

describe('import boundaries', () => {
  const files = [...listSources('src'), ...listSources('schema'), ...listSources('supabase/functions')]

  it('keeps every file to what its room may import', () => {
    const problems = files.flatMap((file) => boundaryViolations(file, readFileSync(file, 'utf8')))
    expect(problems).toEqual([])
  })

  it('catches browser code that imports a Node module or the server', () => {
    expect(boundaryViolations('src/ui/Bad.tsx', "import { readFileSync } from 'node:fs'\n")).toHaveLength(1)
    expect(boundaryViolations('src/form/bad.ts', "import path from 'path'\n")).toHaveLength(1)
    expect(boundaryViolations('src/page/Bad.tsx', "import { createApp } from '../server/app.ts'\n")).toHaveLength(1)
    expect(boundaryViolations('src/sections/Bad.tsx', "const m = await import('../config/load-page-config.ts')\n")).toHaveLength(1)
    expect(boundaryViolations('src/server/bad.ts', "import { loadPageConfig } from '../config/load-page-config.ts'\n")).toHaveLength(1)
    expect(boundaryViolations('schema/bad.ts', "import { App } from '../src/page/App.tsx'\n")).toHaveLength(1)
    expect(boundaryViolations('src/editor/client/bad.ts', "import { readFileSync } from 'node:fs'\n")).toHaveLength(1)
    expect(boundaryViolations('src/editor/preview/bad.tsx', "import { startEditor } from '../server.ts'\n")).toHaveLength(1)
    expect(boundaryViolations('src/page/Bad.tsx', "import { renderMarkdown } from '../editor/client/plain-markdown.ts'\n")).toHaveLength(1)
    expect(boundaryViolations('src/editor/server.ts', "import { readFileSync } from 'node:fs'\nimport { App } from '../page/App.tsx'\n")).toHaveLength(1)
    expect(boundaryViolations('src/studio/client/bad.ts', "import { createHash } from 'node:crypto'\n")).toHaveLength(1)
    expect(boundaryViolations('src/studio/client/bad.ts', "import { loadPageConfig } from '../../config/load-page-config.ts'\n")).toHaveLength(1)
    expect(boundaryViolations('src/studio/client/good.ts', "import { replaceValue } from '../../config/json-edit.ts'\nimport type { Role } from '../protocol.ts'\n")).toEqual([])
    expect(boundaryViolations('src/page/Bad.tsx', "import { studioApi } from '../studio/client/api.ts'\n")).toHaveLength(1)
    expect(boundaryViolations('src/ui/Good.tsx', "import type { Site } from '../../schema/page-config.ts'\nimport { useState } from 'react'\n")).toEqual([])
  })

  it('keeps src/sections to one file per section type plus registry.ts', () => {
    const pascal = (type: string) => type.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase())
    const expected = [...Object.keys(sectionSchemas).map((type) => `${pascal(type)}.tsx`), 'registry.ts'].sort()
    expect(readdirSync('src/sections').sort()).toEqual(expected)
  })
})
