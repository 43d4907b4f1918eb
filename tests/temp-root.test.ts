import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

describe('the run’s temporary folder', () => {
  it('is where tmpdir() points in a test worker, one folder per run', () => {
    expect(path.basename(tmpdir())).toMatch(/^vip-tests-/)
  })
})
