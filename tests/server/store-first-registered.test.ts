import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { LeadStore } from '../../src/server/store/store.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import { leadStoreBackends, runSql } from './support/backends.ts'
import { newLead } from './support/fixtures.ts'

const realtor = {
  name: 'Rita Agent',
  email: 'rita@agents.example.com',
  phone: '416-555-0150',
  isRealtor: 'yes',
  brokerage: 'Example Realty Inc., Brokerage',
  recoNumber: '5550123',
}

describe.each(leadStoreBackends())('first-registered time', (backend) => {
  let store: LeadStore
  beforeAll(() => backend.setup(), 60_000)
  afterAll(() => backend.teardown())
  beforeEach(async () => {
    store = await backend.fresh()
    return () => store.close()
  })

  describe(backend.name, () => {
    it("is the lead's own time at first, and the first one's when the same person registers again for the launch", async () => {
      const first = await store.saveLead(
        newLead({ createdAt: '2026-02-01T15:00:00.000Z', fields: { ...realtor } }),
        null,
      )
      const again = await store.saveLead(
        newLead({ createdAt: '2026-02-09T15:00:00.000Z', fields: { ...realtor, email: ' RITA@agents.example.com' } }),
        null,
      )
      const elsewhere = await store.saveLead(
        newLead({ launch: 'maple-ridge', createdAt: '2026-02-10T15:00:00.000Z', fields: { ...realtor } }),
        null,
      )
      expect(first.lead.firstRegisteredAt).toBe('2026-02-01T15:00:00.000Z')
      expect(again.lead.firstRegisteredAt).toBe('2026-02-01T15:00:00.000Z')
      expect(again.lead.createdAt).toBe('2026-02-09T15:00:00.000Z')
      expect(elsewhere.lead.firstRegisteredAt).toBe('2026-02-10T15:00:00.000Z')
    })

    it("cannot be changed by any update path: the store's own, a repeated submission, or SQL run by hand", async () => {
      const lead = newLead({ createdAt: '2026-02-01T15:00:00.000Z', fields: { ...realtor } })
      const saved = await store.saveLead(lead, null)
      const first = '2026-02-01T15:00:00.000Z'
      const now = new Date('2026-03-01T12:00:00.000Z')
      // The same submission sent again with a later time: stored once, as it was.
      expect(
        (await store.saveLead({ ...lead, createdAt: '2026-03-01T00:00:00.000Z' }, null)).lead.firstRegisteredAt,
      ).toBe(first)
      await store.recordFollowUp({
        leadId: saved.lead.id,
        kind: 'status',
        value: 'Contacted',
        author: 'sam@example.com',
        at: now.toISOString(),
      })
      await store.recordFollowUp({
        leadId: saved.lead.id,
        kind: 'note',
        value: 'Called back',
        author: 'sam@example.com',
        at: now.toISOString(),
      })
      await store.fillPhoneNumbers(() => '+14165550150')
      await store.withdrawLead(lead.submissionId, now)
      // An erasure of someone else rewrites nothing of this lead.
      await store.saveLead(newLead({ fields: { name: 'Other', email: 'other@example.com', isRealtor: 'no' } }), null)
      await store.eraseLeads({ email: 'other@example.com' }, (email) =>
        addressKeyOf('secret-secret-secret-secret-1234', email),
      )
      expect((await store.findLead(lead.submissionId))?.firstRegisteredAt).toBe(first)

      await expect(
        runSql(backend, `UPDATE leads SET first_registered_at = '2026-03-05T00:00:00.000Z'`),
      ).rejects.toThrow(/first_registered_at never changes/)
      await expect(runSql(backend, `UPDATE leads SET first_registered_at = NULL`)).rejects.toThrow(
        /first_registered_at never changes/,
      )
      // Other columns stay writable where they were.
      await runSql(backend, `UPDATE leads SET withdrawn_at = NULL`)
      const after = await store.findLead(lead.submissionId)
      expect(after?.firstRegisteredAt).toBe(first)
      expect(after?.withdrawnAt).toBeUndefined()
    })

    it("links a buyer who names an agent to that agent's registration in the same launch, by name or e-mail", async () => {
      const agent = await store.saveLead(
        newLead({ createdAt: '2026-02-01T15:00:00.000Z', fields: { ...realtor } }),
        null,
      )
      await store.saveLead(
        newLead({
          launch: 'maple-ridge',
          createdAt: '2026-01-01T15:00:00.000Z',
          fields: { ...realtor, email: 'rita@other.example.com' },
        }),
        null,
      )
      const byName = await store.saveLead(
        newLead({ fields: { name: 'Ben Buyer', email: 'ben@example.com', isRealtor: 'no', agent: '  rita AGENT ' } }),
        null,
      )
      const byEmail = await store.saveLead(
        newLead({
          fields: { name: 'Bea Buyer', email: 'bea@example.com', isRealtor: 'no', agent: 'Rita@Agents.example.com' },
        }),
        null,
      )
      const nobody = await store.saveLead(
        newLead({ fields: { name: 'Bo Buyer', email: 'bo@example.com', isRealtor: 'no', agent: 'Someone Else' } }),
        null,
      )
      const none = await store.saveLead(
        newLead({ fields: { name: 'Bu Buyer', email: 'bu@example.com', isRealtor: 'no' } }),
        null,
      )
      const linked = {
        id: agent.lead.id,
        createdAt: '2026-02-01T15:00:00.000Z',
        name: 'Rita Agent',
        brokerage: 'Example Realty Inc., Brokerage',
      }
      expect(await store.agentRegistrationOf(byName.lead.id)).toEqual(linked)
      expect(await store.agentRegistrationOf(byEmail.lead.id)).toEqual(linked)
      expect(await store.agentRegistrationOf(nobody.lead.id)).toBeUndefined()
      expect(await store.agentRegistrationOf(none.lead.id)).toBeUndefined()
    })
  })
})
