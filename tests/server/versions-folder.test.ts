import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ownVersionsDir } from '../../src/server/site/publisher.ts'

// Each server process publishes into a folder of its own under DIST_DIR/.versions: a second process on the same
// DIST_DIR (a restart that overlaps the old one, two servers on one machine) never removes what the first serves.

const root = mkdtempSync(path.join(tmpdir(), 'vip-versions-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** The id of a process that ran and has ended. */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid!
}

describe('ownVersionsDir', () => {
  it("gives each process its own folder, removes those of ended processes and older layouts, and keeps a running one's", async () => {
    const versions = path.join(root, 'dist', '.versions')
    const running = spawn('sleep', ['60'], { stdio: 'ignore' })
    try {
      const keep = [`${hostname()}-${running.pid}-0a1b2c3d`, `another-machine-${await endedPid()}-0a1b2c3d`]
      const remove = [`${hostname()}-${await endedPid()}-0a1b2c3d`, 'bramblewood-crossing']
      for (const name of [...keep, ...remove]) {
        mkdirSync(path.join(versions, name, 'bramblewood-crossing', '1'), { recursive: true })
        writeFileSync(
          path.join(versions, name, 'bramblewood-crossing', '1', 'index.html'),
          '<!doctype html><title>v1</title>',
        )
      }

      const own = ownVersionsDir(path.join(root, 'dist'))
      expect(path.dirname(own)).toBe(versions)
      expect(path.basename(own)).toMatch(
        new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-${process.pid}-[0-9a-f]{8}$`),
      )
      expect(readdirSync(own)).toEqual([])
      expect(readdirSync(versions).sort()).toEqual([...keep, path.basename(own)].sort())
      for (const name of keep)
        expect(existsSync(path.join(versions, name, 'bramblewood-crossing', '1', 'index.html'))).toBe(true)

      // A second call in the same process (a second server in one process, as the tests start them) gets another.
      const second = ownVersionsDir(path.join(root, 'dist'))
      expect(second).not.toBe(own)
      expect(existsSync(own)).toBe(true)
    } finally {
      running.kill('SIGKILL')
    }
  })
})
