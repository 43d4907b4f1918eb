import { openSqliteStore } from '../../../src/server/store/sqlite/sqlite-store.ts'
import { defaultLaunch, mailFor, newLead } from './fixtures.ts'

// Run by tests/server/sqlite-writer.test.ts: saves registrations through the worker-thread writer, 20 at a time, for
// ever, and prints each submission id once its save is acknowledged; the test kills this process mid-way.
const store = openSqliteStore(process.argv[2]!, { defaultLaunch, writerThread: true })
async function saveForEver(): Promise<void> {
  for (;;) {
    const lead = newLead({ submissionId: crypto.randomUUID() })
    await store.saveLead(lead, mailFor(lead), [{ kind: 'reply', mail: { ...mailFor(lead), to: 'jane@example.com' } }])
    process.stdout.write(`acked ${lead.submissionId}\n`)
  }
}
for (let i = 0; i < 20; i++) void saveForEver()
