import { readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { sectionSchemas } from '../../schema/sections.ts'

// Code is laid out in rooms: first by where it runs, then (in src/server) by concern (STYLE.md §2). These rules keep
// it so: a file that imports across a line fails here with the file, the import and the rule it breaks; so does an
// import circle, a folder grown past 20 files and a file grown past 450 lines. The table below is the README's table
// of folders ("How it fits together"); a test holds the two to the same rooms and the same rules.

/** Anything may be imported. */
const anything = '*'

/**
 * What each room may import besides itself: rooms (folders, ending in /) and single files. Exceptions that name a
 * file are the few imports that run against a room's direction, each explained in the README's table.
 */
export const allowed: Record<string, readonly string[] | typeof anything> = {
  'schema/': [],
  'src/config/': ['schema/'],
  'src/build/': anything,
  'src/page/': ['schema/', 'src/sections/', 'src/ui/', 'src/form/'],
  'src/sections/': ['schema/', 'src/ui/', 'src/form/', 'src/page/Island.tsx'],
  'src/ui/': ['schema/', 'src/page/Island.tsx', 'src/page/dialog-state.ts'],
  'src/form/': ['schema/', 'src/ui/', 'src/page/analytics.ts'],
  'src/server/': [
    'schema/',
    'src/server/settings/',
    'src/server/registration/',
    'src/server/store/',
    'src/server/delivery/',
    'src/server/site/',
    'src/server/leads-page/',
    'src/server/release/',
    'src/server/start/',
    'src/server/function/',
  ],
  'src/server/function/': [
    'schema/',
    'src/server/settings/',
    'src/server/registration/',
    'src/server/store/',
    'src/server/delivery/',
    'src/server/site/',
    // The realtors' worksheet page is one of the pages a reply's links open (function/reply-routes.ts).
    'src/server/release/',
    'src/server/compose-later.ts',
  ],
  'src/server/start/': [
    'schema/',
    'src/server/settings/',
    'src/server/registration/',
    'src/server/store/',
    'src/server/delivery/',
    'src/server/site/',
    'src/server/leads-page/',
    'src/server/app.ts',
    'src/server/env.ts',
    'src/server/node-options.ts',
    'src/server/node-store.ts',
    'src/server/node-listen.ts',
    'src/server/delivery-supervisor.ts',
  ],
  'src/server/settings/': ['schema/'],
  'src/server/registration/': ['schema/', 'src/server/settings/', 'src/server/store/sign-in-counts.ts'],
  'src/server/store/': ['schema/', 'src/server/settings/'],
  'src/server/delivery/': ['schema/', 'src/server/settings/', 'src/server/store/'],
  'src/server/site/': ['schema/', 'src/server/settings/', 'src/server/store/', 'src/server/delivery/'],
  'src/server/leads-page/': [
    'schema/',
    'src/server/settings/',
    'src/server/store/',
    'src/server/delivery/',
    'src/server/registration/',
    'src/server/app.ts',
    'src/server/leads-page/routes/',
  ],
  'src/server/leads-page/routes/': ['schema/', 'src/server/store/', 'src/server/delivery/', 'src/server/leads-page/'],
  'src/server/release/': ['schema/', 'src/server/settings/', 'src/server/store/', 'src/server/delivery/'],
  'src/studio/': ['schema/'],
  'src/studio/client/': [
    'schema/',
    'src/page/',
    'src/ui/',
    'src/sections/',
    'src/form/',
    'src/studio/protocol.ts',
    'src/config/json-edit.ts',
    'src/config/json-source.ts',
  ],
  'src/studio/server/': [
    'schema/',
    'src/config/',
    'src/build/',
    'src/studio/',
    'src/server/',
    'src/server/site/',
    'src/server/store/',
    'src/server/delivery/',
    'src/server/registration/',
    'src/server/release/',
  ],
  'src/cli/': anything,
  'supabase/': [
    'schema/',
    'src/server/',
    'src/server/settings/',
    'src/server/registration/',
    'src/server/store/',
    'src/server/delivery/',
    'src/server/site/',
  ],
  'tests/': anything,
}

/** The room a file lives in, by its path relative to the repository: the deepest folder of the table holding it. */
export function roomOf(file: string): string {
  if (file === 'src/entry-client.tsx') return 'src/page/'
  if (file.startsWith('supabase/')) return 'supabase/'
  // src/server/ is the two entries and env.ts only: a folder under it is a room of its own, named in the table.
  const folders = Object.keys(allowed).filter(
    (room) => file.startsWith(room) && (room !== 'src/server/' || path.posix.dirname(file) === 'src/server'),
  )
  return folders.sort((a, b) => b.length - a.length)[0] ?? path.posix.dirname(file) + '/'
}

const browserRooms = ['src/page/', 'src/sections/', 'src/ui/', 'src/form/', 'src/studio/client/']
const nodeOnly = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)])
/**
 * The store's drivers (sqlite/, postgres/, and each concern's sqlite-… and postgres-… modules): only the entries (and
 * the CLI, the build and the tests) choose one; every other room goes through store/store.ts.
 */
const isStoreDriver = (file: string) =>
  /^src\/server\/store\/((sqlite|postgres)\/|[^/]+\/(sqlite|postgres)-[^/]+$)/.test(file)
const mayChooseDriver = new Set([
  'src/server/store/',
  'src/server/',
  'src/server/start/',
  'supabase/',
  'src/cli/',
  'src/build/',
  'tests/',
])

/** The import specifiers of a TypeScript source: static imports (type-only too), re-exports, dynamic import(). */
export function importsOf(source: string): string[] {
  const found: string[] = []
  const patterns = [
    /^\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) found.push(match[1]!)
  return found
}

/** The repository path a relative specifier of `file` names. */
function resolve(file: string, spec: string): string {
  return path.posix.normalize(path.posix.join(path.posix.dirname(file), spec))
}

/** The rule a file's imports break, one line each (empty when it keeps to its room). */
export function boundaryViolations(file: string, source: string): string[] {
  const room = roomOf(file)
  const rules = allowed[room]
  const problems: string[] = []
  if (!rules)
    return [
      `${file} is in ${room}, a folder the table of rooms does not name: add it to the table here and in the README.`,
    ]
  for (const spec of importsOf(source)) {
    if (browserRooms.includes(room) && nodeOnly.has(spec)) {
      problems.push(`${file} imports '${spec}': ${room} runs in the browser, which has no Node modules.`)
      continue
    }
    if (room === 'src/config/' && (spec === 'react' || spec.startsWith('react-dom'))) {
      problems.push(`${file} imports '${spec}': src/config runs in Node and renders nothing.`)
      continue
    }
    // Only code counts: a stylesheet import (styles.css) is the build's business.
    if (!spec.startsWith('.') || !/\.tsx?$/.test(spec)) continue
    const target = resolve(file, spec)
    const targetRoom = roomOf(target)
    if (
      !room.startsWith('src/studio/') &&
      room !== 'src/build/' &&
      room !== 'src/cli/' &&
      room !== 'tests/' &&
      targetRoom.startsWith('src/studio/')
    ) {
      problems.push(
        `${file} imports '${spec}' (${targetRoom}): the site must not depend on the studio (its editor included).`,
      )
      continue
    }
    if (isStoreDriver(target) && !mayChooseDriver.has(room)) {
      problems.push(
        `${file} imports '${spec}', a store driver: ${room} goes through the store's contract (src/server/store/store.ts), never a driver.`,
      )
      continue
    }
    if (rules === anything || targetRoom === room) continue
    if (!rules.includes(targetRoom) && !rules.includes(target)) {
      problems.push(
        `${file} imports '${spec}' (${targetRoom}): ${room} may import only from ${rules.length ? rules.join(', ') : 'itself'}.`,
      )
    }
  }
  return problems
}

/**
 * The import circles among `graph`'s files (file → the files it imports), each as the path that closes it,
 * e.g. ['a.ts', 'b.ts', 'a.ts']. One circle per strongly connected group of files (Tarjan).
 */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []
  const visit = (file: string) => {
    index.set(file, index.size)
    low.set(file, index.get(file)!)
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!))
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        group.push(member)
      } while (member !== file)
      if (group.length > 1 || (graph.get(file) ?? []).includes(file)) groups.push(group)
    }
  }
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file)
  // Within a group, walk from its first file until a file repeats: that walk is one circle to name.
  return groups.map((group) => {
    const members = new Set(group)
    const start = [...group].sort()[0]!
    const walk = [start]
    const seen = new Map([[start, 0]])
    for (;;) {
      const next = (graph.get(walk.at(-1)!) ?? []).find((f) => members.has(f))!
      if (seen.has(next)) return [...walk.slice(seen.get(next)), next]
      seen.set(next, walk.length)
      walk.push(next)
    }
  })
}

/** The rooms of the README's table of folders: each row's folder and what its "may import" cell names. */
export function readmeRooms(readme: string): Record<string, readonly string[] | typeof anything> {
  const lines = readme.split('\n')
  const start = lines.findIndex((line) => line.startsWith('| folder |'))
  const header = lines[start]
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('|'))
  const rows = lines.slice(start + 2, end === -1 ? undefined : end)
  const column =
    header
      ?.split('|')
      .map((cell) => cell.trim())
      .indexOf('may import') ?? -1
  return Object.fromEntries(
    rows.map((line) => {
      const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim())
      const folder = /`([^`]+)`/.exec(cells[1]!)?.[1] ?? cells[1]!
      const may = cells[column] ?? ''
      return [folder, may === 'anything' ? anything : [...may.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)]
    }),
  )
}

function listSources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.posix.join(dir, entry)
    if (statSync(full).isDirectory()) return listSources(full)
    return /\.tsx?$/.test(entry) && !entry.endsWith('.d.ts') ? [full] : []
  })
}

function listFolders(dir: string): string[] {
  return [
    dir,
    ...readdirSync(dir).flatMap((entry) =>
      statSync(path.posix.join(dir, entry)).isDirectory() ? listFolders(path.posix.join(dir, entry)) : [],
    ),
  ]
}

const maxFilesInFolder = 20
const maxLines = 450

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
    expect(
      boundaryViolations('src/sections/Bad.tsx', "const m = await import('../config/load-page-config.ts')\n"),
    ).toHaveLength(1)
    expect(
      boundaryViolations('src/server/bad.ts', "import { loadPageConfig } from '../config/load-page-config.ts'\n"),
    ).toHaveLength(1)
    expect(boundaryViolations('schema/bad.ts', "import { App } from '../src/page/App.tsx'\n")).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/studio/client/preview/bad.tsx',
        "import { startLocalStudio } from '../../server/local-server.ts'\n",
      ),
    ).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/page/Bad.tsx',
        "import { renderMarkdown } from '../studio/client/editing/plain-markdown.ts'\n",
      ),
    ).toHaveLength(1)
    expect(boundaryViolations('src/studio/server/bad.ts', "import { App } from '../../page/App.tsx'\n")).toHaveLength(1)
    expect(boundaryViolations('src/studio/client/bad.ts', "import { createHash } from 'node:crypto'\n")).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/studio/client/bad.ts',
        "import { loadPageConfig } from '../../config/load-page-config.ts'\n",
      ),
    ).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/studio/client/good.ts',
        "import { replaceValue } from '../../config/json-edit.ts'\nimport type { Role } from '../protocol.ts'\n",
      ),
    ).toEqual([])
    expect(
      boundaryViolations('src/page/Bad.tsx', "import { studioApi } from '../studio/client/api.ts'\n"),
    ).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/ui/Good.tsx',
        "import type { Site } from '../../schema/page-config.ts'\nimport { useState } from 'react'\n",
      ),
    ).toEqual([])
  })

  it('keeps the server rooms apart: stores know no delivery, delivery no registration, no room but the entries picks a driver', () => {
    expect(
      boundaryViolations('src/server/store/bad.ts', "import type { Mailer } from '../delivery/mailer.ts'\n"),
    ).toHaveLength(1)
    expect(
      boundaryViolations('src/server/delivery/bad.ts', "import { refusal } from '../registration/refusal.ts'\n"),
    ).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/server/leads-page/bad.ts',
        "import { openSqliteStore } from '../store/sqlite/sqlite-store.ts'\n",
      ),
    ).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/server/delivery/bad.ts',
        "import { createPostgresStore } from '../store/postgres/postgres-store.ts'\n",
      ),
    ).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/server/leads-page/bad.ts',
        "import { createSqliteOutbox } from '../store/outbox/sqlite-outbox.ts'\n",
      ),
    ).toHaveLength(1)
    expect(
      boundaryViolations(
        'src/server/leads-page/good.ts',
        "import type { OutboxStore } from '../store/outbox/outbox.ts'\n",
      ),
    ).toEqual([])
    expect(
      boundaryViolations('src/server/registration/bad.ts', "import { createApp } from '../app.ts'\n"),
    ).toHaveLength(1)
    expect(
      boundaryViolations('src/server/leads-page/good.ts', "import type { LeadStore } from '../store/store.ts'\n"),
    ).toEqual([])
    expect(
      boundaryViolations('src/server/node.ts', "import { openSqliteStore } from './store/sqlite/sqlite-store.ts'\n"),
    ).toEqual([])
    expect(boundaryViolations('src/server/lost/file.ts', "import { createApp } from '../app.ts'\n")).toHaveLength(1)
  })

  it('allows the page imports that run back up only to the files the table names', () => {
    expect(boundaryViolations('src/ui/Good.tsx', "import { Island } from '../page/Island.tsx'\n")).toEqual([])
    expect(boundaryViolations('src/ui/Bad.tsx', "import { App } from '../page/App.tsx'\n")).toHaveLength(1)
    expect(boundaryViolations('src/form/Bad.tsx', "import { Island } from '../page/Island.tsx'\n")).toHaveLength(1)
  })

  it('has no import circle anywhere in src/ (type-only and dynamic imports count)', () => {
    const sources = files.filter((file) => file.startsWith('src/'))
    const graph = new Map(
      sources.map((file) => [
        file,
        importsOf(readFileSync(file, 'utf8'))
          .filter((s) => s.startsWith('.'))
          .map((s) => resolve(file, s)),
      ]),
    )
    expect(importCircles(graph).map((circle) => circle.join(' → '))).toEqual([])
  })

  it('names the files of a circle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ])
    expect(importCircles(graph)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
    ])
    expect(
      importCircles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([])
  })

  it(`keeps every folder of src/ to ${maxFilesInFolder} source files and every source file to ${maxLines} lines`, () => {
    const crowded = listFolders('src')
      .map(
        (dir) =>
          [
            dir,
            readdirSync(dir).filter((e) => /\.tsx?$/.test(e) && statSync(path.posix.join(dir, e)).isFile()).length,
          ] as const,
      )
      .filter(([, count]) => count > maxFilesInFolder)
      .map(([dir, count]) => `${dir} holds ${count} source files: split it into rooms.`)
    const long = listSources('src')
      .map((file) => [file, readFileSync(file, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > maxLines)
      .map(([file, lines]) => `${file} has ${lines} lines: cut it in two.`)
    expect([...crowded, ...long]).toEqual([])
  })

  it("names the same rooms, with the same rules, as the README's table of folders", () => {
    const readme = readmeRooms(readFileSync('README.md', 'utf8'))
    const normalise = (table: Record<string, readonly string[] | typeof anything>) =>
      Object.fromEntries(Object.entries(table).map(([room, may]) => [room, may === anything ? may : [...may].sort()]))
    expect(normalise(readme)).toEqual(normalise(allowed))
  })

  it('keeps src/sections to one file per section type plus registry.ts', () => {
    const pascal = (type: string) => type.replace(/(^|-)([a-z])/g, (_, _dash: string, c: string) => c.toUpperCase())
    const expected = [...Object.keys(sectionSchemas).map((type) => `${pascal(type)}.tsx`), 'registry.ts'].sort()
    expect(readdirSync('src/sections').sort()).toEqual(expected)
  })
})
