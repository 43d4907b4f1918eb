import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'

/*
 * Vitest's global setup: one temporary folder for the whole run, named in TMPDIR for the test workers and every
 * process they start (servers, Chromium, PostgreSQL, the build), and removed when the run ends. Tests make their
 * folders with `mkdtempSync(path.join(tmpdir(), …))` and many cannot remove them themselves (a fixture copied at a
 * describe's top, a process that still writes as the test ends): without this, every run left hundreds behind.
 */
export default function setup(): () => void {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-tests-'))
  // Others may pass through it, as through /tmp: run as root, the tests start PostgreSQL as the postgres user in a
  // folder of their own inside it (tests/server/support/postgres.ts).
  chmodSync(root, 0o755)
  const before = process.env.TMPDIR
  process.env.TMPDIR = root
  return () => {
    if (before === undefined) delete process.env.TMPDIR
    else process.env.TMPDIR = before
    rmSync(root, { recursive: true, force: true, maxRetries: 3 })
  }
}
