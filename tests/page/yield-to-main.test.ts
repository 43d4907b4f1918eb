import { afterEach, describe, expect, it, vi } from 'vitest'
import { yieldToMain } from '../../src/page/yield-to-main.ts'

describe('yieldToMain', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('resumes in a later task: a task queued before it runs first', async () => {
    vi.stubGlobal('scheduler', undefined)
    const order: string[] = []
    const channel = new MessageChannel()
    channel.port1.onmessage = () => {
      order.push('task queued before')
      channel.port1.close()
    }
    channel.port2.postMessage(null)
    await yieldToMain()
    order.push('after the yield')
    expect(order).toEqual(['task queued before', 'after the yield'])
  })

  it("uses the browser's scheduler.yield() where there is one", async () => {
    const yieldToBrowser = vi.fn(() => Promise.resolve())
    vi.stubGlobal('scheduler', { yield: yieldToBrowser })
    await yieldToMain()
    expect(yieldToBrowser).toHaveBeenCalledTimes(1)
  })
})
