import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PreviewLinkResponse, PreviewResponse } from '../../src/studio/protocol.ts'
import {
  originalText,
  personWithPassword,
  startStudioHarness,
  type StudioClient,
  type StudioHarness,
} from './support/studio-harness.ts'

// The studio's previews of a launch's phases (issue 24): the previews show the phase in force now (the harness's clock
// is 2026-11-25 12:00 UTC), any phase asked for, and a preview link shows the phase it was made for.

const slug = 'bramblewood-crossing'
const password = 'correct horse battery staple'
// The public release starts by itself on 25 November at 10:00 in Toronto (15:00 UTC), three hours after the harness's
// now.
const scheduled = originalText.replace('"name": "public"', '"name": "public", "starts": "2026-11-25T10:00"')
const publicEyebrow = 'Now Open to Everyone'

let h: StudioHarness
let owner: StudioClient
beforeEach(async () => {
  h = await startStudioHarness()
  owner = await personWithPassword(h, 'owner@example.com', 'owner', password)
  expect(scheduled).not.toBe(originalText)
  expect((await owner.json(`/studio/api/launches/${slug}/draft`, 'PUT', { text: scheduled })).status).toBe(200)
})
afterEach(() => h.close())

async function preview(client: StudioClient, target: string): Promise<PreviewResponse> {
  const response = await client.request(target)
  expect(response.status).toBe(200)
  return (await response.json()) as PreviewResponse
}

describe('studio previews of phases', () => {
  it('shows the phase in force, lists every phase with its start, and shows another when asked', async () => {
    const now = await preview(owner, `/studio/api/launches/${slug}/preview`)
    expect(now.phases).toEqual({
      shown: 'vip',
      live: 'vip',
      timeZone: 'America/Toronto',
      list: [
        { name: 'coming-soon', words: 'Coming soon' },
        { name: 'vip', words: 'VIP' },
        { name: 'public', words: 'Public release', starts: '2026-11-25T10:00' },
        { name: 'sold-out', words: 'Sold out' },
      ],
      hidden: [],
    })
    expect(JSON.stringify(now.config)).not.toContain(publicEyebrow)

    const asked = await preview(owner, `/studio/api/launches/${slug}/preview?phase=public`)
    expect(asked.phases?.shown).toBe('public')
    expect(asked.phases?.live).toBe('vip')
    expect(JSON.stringify(asked.config)).toContain(publicEyebrow)
    // The validator of the phase shown is one the studio serves.
    expect((await owner.request(asked.validatorUrl)).status).toBe(200)

    // A name that is not one of the launch's phases shows the live one.
    expect((await preview(owner, `/studio/api/launches/${slug}/preview?phase=nowhere`)).phases?.shown).toBe('vip')
  })

  it('switches by itself at the start time, by the launch time zone', async () => {
    h.now = new Date('2026-11-25T14:59:00Z')
    expect((await preview(owner, `/studio/api/launches/${slug}/preview`)).phases?.live).toBe('vip')
    h.now = new Date('2026-11-25T15:00:00Z')
    const after = await preview(owner, `/studio/api/launches/${slug}/preview`)
    expect(after.phases?.live).toBe('public')
    expect(JSON.stringify(after.config)).toContain(publicEyebrow)
  })

  it('makes a preview link for one phase, which a query cannot change; refuses a phase the launch lacks', async () => {
    const made = await owner.json(`/studio/api/launches/${slug}/preview-link`, 'POST', { phase: 'public' })
    expect(made.status).toBe(200)
    const link = (await made.json()) as PreviewLinkResponse
    expect(link.phase).toBe('public')
    const token = new URL(link.url).pathname.split('/').pop()!
    const stranger = h.client('192.0.2.40')
    const shown = await preview(stranger, `/studio/api/preview/${token}?phase=vip`)
    expect(shown.phases?.shown).toBe('public')
    expect(JSON.stringify(shown.config)).toContain(publicEyebrow)
    expect((await stranger.request(shown.validatorUrl)).status).toBe(200)

    // Without a phase the link shows whichever is in force when it is opened.
    const plain = (await (
      await owner.json(`/studio/api/launches/${slug}/preview-link`, 'POST', {})
    ).json()) as PreviewLinkResponse
    expect(plain.phase).toBeUndefined()
    const plainToken = new URL(plain.url).pathname.split('/').pop()!
    expect((await preview(stranger, `/studio/api/preview/${plainToken}`)).phases?.shown).toBe('vip')

    const refused = await owner.json(`/studio/api/launches/${slug}/preview-link`, 'POST', { phase: 'nowhere' })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: string }).error).toBe(
      `Launch "${slug}" has no phase "nowhere" to preview.`,
    )
  })
})
