import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { signWebhook } from '../../src/server/delivery/webhook.ts'

// docs/webhook.md shows a call a receiver can check by hand: its signature must be the one the server would send.
describe('docs/webhook.md', () => {
  it("shows an example whose signature is the server's own for its body and the secret it names", async () => {
    const doc = readFileSync('docs/webhook.md', 'utf8')
    const secret = /signed with the secret `([^`]+)`/.exec(doc)?.[1]
    const header = /^webhook-signature: (.+)$/m.exec(doc)?.[1]
    const timestamp = Number(/^webhook-timestamp: (\d+)$/m.exec(doc)?.[1])
    const body = /\n\n(\{"type":"lead\.created"[\s\S]*?\}\}\})\n```/.exec(doc)?.[1]?.replace(/\n/g, '')
    expect(secret && header && body && timestamp).toBeTruthy()
    expect(JSON.parse(body!)).toHaveProperty('data.launch')
    expect(header).toBe(await signWebhook(secret!, timestamp, body!))
  })
})
