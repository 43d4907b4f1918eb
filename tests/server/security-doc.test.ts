import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// docs/security.md names the file behind each measure: a file that moves or goes must take its line along.

describe('docs/security.md', () => {
  const text = readFileSync('docs/security.md', 'utf8')

  it('names only files and folders that exist', () => {
    const named = [...text.matchAll(/`((?:src|schema|supabase)\/[^`\s]*)`/g)].map((m) => m[1]!)
    expect(named.length).toBeGreaterThan(30)
    expect(named.filter((file) => !existsSync(file))).toEqual([])
  })

  it('is what SECURITY.md at the root points to, with how to report a problem', () => {
    expect(readFileSync('SECURITY.md', 'utf8')).toContain('(docs/security.md)')
    expect(text).toContain('## Reporting a problem')
  })
})
