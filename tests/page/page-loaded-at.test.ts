import { afterEach, describe, expect, it, vi } from 'vitest'
import { computeDelayLeft, pageLoadedAtGlobal } from '../../src/page/page-loaded-at.ts'

describe('computeDelayLeft', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.restoreAllMocks()
  })

  it('counts from the load the boot module recorded', () => {
    vi.spyOn(performance, 'now').mockReturnValue(1_700)
    vi.stubGlobal(pageLoadedAtGlobal, 1_000)
    expect(computeDelayLeft(1_000)).toBe(300)
  })

  it('is 0 once the delay has passed, never negative', () => {
    vi.spyOn(performance, 'now').mockReturnValue(5_000)
    vi.stubGlobal(pageLoadedAtGlobal, 1_000)
    expect(computeDelayLeft(1_000)).toBe(0)
  })

  it('counts from now where no boot module ran (the dev server)', () => {
    vi.stubGlobal(pageLoadedAtGlobal, undefined)
    expect(computeDelayLeft(1_000)).toBe(1_000)
  })
})
