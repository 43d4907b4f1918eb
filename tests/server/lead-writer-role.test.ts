import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { leftCountsOf } from '../../src/server/release/left-counts.ts'
import { createPostgresRelease } from '../../src/server/store/postgres/postgres-release.ts'
import { createPostgresStore, type SqlQueryable } from '../../src/server/store/postgres/postgres-store.ts'
import type { NewWorksheet } from '../../src/server/store/release.ts'
import { addressKeyOf } from '../../src/server/store/suppression.ts'
import { leadIdMark } from '../../src/server/store/follow-up.ts'
import { defaultLaunch, mailFor, newLead } from './support/fixtures.ts'
import { plannedPostgresKind, startTestPostgres, type TestPostgres } from './support/postgres.ts'

let pg: TestPostgres

beforeAll(async () => {
  pg = await startTestPostgres()
}, 60_000)
afterAll(() => pg?.stop())

/** Runs `fn` on one connection acting as lead_writer (SET ROLE, as the migrations' owner may). */
function asLeadWriter<T>(fn: (db: SqlQueryable) => Promise<T>): Promise<T> {
  return pg.session(async (db) => {
    await db.query('SET ROLE lead_writer')
    try {
      return await fn(db)
    } finally {
      await db.query('RESET ROLE')
    }
  })
}

/** The error Postgres gives, or undefined when the statement was allowed. */
async function refusal(db: SqlQueryable, sql: string, params: unknown[] = []): Promise<string | undefined> {
  try {
    await db.query(sql, params)
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

describe(`the lead_writer role (migrations on PostgreSQL, ${plannedPostgresKind()})`, () => {
  it('is not the owner of any table, and cannot log in until given a password', async () => {
    const { rows } = await pg.db.query(
      `SELECT r.rolcanlogin, r.rolsuper, r.rolbypassrls,
              (SELECT count(*)::int FROM pg_class c WHERE c.relowner = r.oid) AS owned
       FROM pg_roles r WHERE r.rolname = 'lead_writer'`,
    )
    expect(rows).toEqual([{ rolcanlogin: false, rolsuper: false, rolbypassrls: false, owned: 0 }])
  })

  // What several Node servers share (20260104000000_node_servers.sql, 20260105000000_published_builds.sql): the
  // owner's alone, like the sign-in counts.
  const shared = [
    'rate_limit_counts',
    'server_secrets',
    'visit_salts',
    'visit_visitors',
    'daily_runs',
    'sign_in_failures',
    'sign_in_devices',
    'visit_counts',
    'published_builds',
    'published_build_files',
  ]

  it("keeps the Node servers' shared tables behind row level security", async () => {
    const { rows } = await pg.db.query(
      `SELECT relname, relrowsecurity FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY($1) ORDER BY relname`,
      [shared],
    )
    expect(rows).toEqual([...shared].sort().map((relname) => ({ relname, relrowsecurity: true })))
  })

  it.each(['anon', 'authenticated', 'lead_writer'])(
    "gives %s no privilege on the Node servers' shared tables",
    async (role) => {
      for (const table of shared) {
        for (const privilege of ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) {
          const { rows } = await pg.db.query('SELECT has_table_privilege($1, $2, $3) AS granted', [
            role,
            `public.${table}`,
            privilege,
          ])
          expect((rows[0] as { granted: boolean }).granted, `${role} ${privilege} ${table}`).toBe(false)
        }
      }
    },
  )

  it("reads each launch's newest published contract through published_contracts(), and nothing else of the published builds", async () => {
    await pg.reset()
    await pg.db.query('DELETE FROM public.published_builds')
    const put = (launch: string, number: number, label: string) =>
      pg.db.query(
        `INSERT INTO public.published_builds (launch, number, config_text, manifest) VALUES ($1, $2, 'config text', $3::jsonb)`,
        [launch, number, JSON.stringify({ contract: { slug: launch, label }, tagManager: false })],
      )
    await put('bramblewood-crossing', 1, 'first')
    await put('bramblewood-crossing', 2, 'second')
    await put('willowmere-commons', 1, 'only')
    await pg.db.query(
      `INSERT INTO public.published_build_files (launch, number, path, bytes) VALUES ('willowmere-commons', 1, 'index.html', '\\x3c68746d6c3e')`,
    )
    await asLeadWriter(async (db) => {
      const { rows } = await db.query(
        'SELECT launch, number, contract FROM public.published_contracts() ORDER BY launch',
      )
      expect(rows).toEqual([
        { launch: 'bramblewood-crossing', number: 2, contract: { slug: 'bramblewood-crossing', label: 'second' } },
        { launch: 'willowmere-commons', number: 1, contract: { slug: 'willowmere-commons', label: 'only' } },
      ])
      expect(await refusal(db, 'SELECT config_text FROM public.published_builds')).toMatch(/permission denied/)
      expect(await refusal(db, 'SELECT bytes FROM public.published_build_files')).toMatch(/permission denied/)
    })
    const { rows } = await pg.db.query(
      `SELECT p.prosecdef, p.proconfig, pg_get_userbyid(p.proowner) = current_user AS owned_by_owner
       FROM pg_proc p WHERE p.oid = 'public.published_contracts()'::regprocedure`,
    )
    expect(rows).toEqual([{ prosecdef: true, proconfig: ['search_path=""'], owned_by_owner: true }])
    await pg.db.query('DELETE FROM public.published_builds')
  })

  it("lets the function's role count a visit image through count_visit() and read nothing of the visit tables", async () => {
    await asLeadWriter(async (db) => {
      await db.query(`SELECT public.count_visit('role-test', current_date, '\\x00ff'::bytea)`)
      expect(await refusal(db, 'SELECT salt FROM public.visit_salts')).toMatch(/permission denied/)
      expect(await refusal(db, 'SELECT visitor FROM public.visit_visitors')).toMatch(/permission denied/)
      expect(await refusal(db, 'SELECT visits FROM public.visit_counts')).toMatch(/permission denied/)
      // A day far from today is refused: a caller cannot delete today's salt by naming a later day.
      await db.query(`SELECT public.count_visit('role-test', current_date + 30, '\\x00ff'::bytea)`)
    })
    const { rows } = await pg.db.query(
      `SELECT day = current_date AS today, visits, visitors FROM public.visit_counts WHERE launch = 'role-test'`,
    )
    expect(rows).toEqual([{ today: true, visits: 1, visitors: 1 }])
    for (const role of ['anon', 'authenticated', 'service_role']) {
      const granted = await pg.db.query(
        `SELECT has_function_privilege($1, 'public.count_visit(text, date, bytea)', 'EXECUTE') AS granted`,
        [role],
      )
      expect(granted.rows).toEqual([{ granted: false }])
    }
    await pg.db.query(`DELETE FROM public.visit_counts WHERE launch = 'role-test'`)
  })

  it.each(['anon', 'authenticated', 'service_role'])('lets %s not call published_contracts()', async (role) => {
    const { rows } = await pg.db.query(
      `SELECT has_function_privilege($1, 'public.published_contracts()', 'EXECUTE') AS granted`,
      [role],
    )
    expect(rows).toEqual([{ granted: false }])
    const refused = await pg.session(async (db) => {
      await db.query(`SET ROLE ${role}`)
      try {
        return await refusal(db, 'SELECT * FROM public.published_contracts()')
      } finally {
        await db.query('RESET ROLE')
      }
    })
    expect(refused).toMatch(/permission denied/)
  })

  it("does the function's work: stores a lead with its notification, claims it, marks it failed and sent, records a withdrawal", async () => {
    await pg.reset()
    const lead = newLead()
    await asLeadWriter(async (db) => {
      const store = createPostgresStore(db, { defaultLaunch })
      expect((await store.saveLead(lead, mailFor(lead))).created).toBe(true)
      expect((await store.saveLead(lead, mailFor(lead))).created).toBe(false)
      const [job] = await store.claimDueMail(new Date('2025-06-01T15:00:00Z'), 10, 60_000)
      expect(job?.leadId).toBeDefined()
      await store.markMailFailed(job!.id, 'Error: test', new Date('2025-06-01T15:00:30Z'))
      const [retry] = await store.claimDueMail(new Date('2025-06-01T15:00:30Z'), 10, 60_000)
      await store.markMailSent([retry!.id], new Date('2025-06-01T15:00:31Z'))
      expect(await store.countMail()).toEqual({ pending: 0, sent: 1 })
      expect((await store.listLeads(0, 10)).map((l) => l.submissionId)).toEqual([lead.submissionId])
      expect(
        await refusal(db, 'UPDATE public.leads SET withdrawn_at = now() WHERE submission_id = $1', [lead.submissionId]),
      ).toBeUndefined()
      // A fresh document link: the lead's row is its gate (20260110000000_documents_reply_gate.sql), once a window.
      const id = (
        (await db.query('SELECT id FROM public.leads WHERE submission_id = $1', [lead.submissionId])).rows as Array<{
          id: string
        }>
      )[0]!.id
      const fresh = {
        to: 'jane@example.com',
        subject: 'Fresh links',
        text: 'Links.',
        html: '<p>Links.</p>',
        messageId: '<fresh@example.com>',
        idempotencyKey: 'fresh',
      }
      expect(
        await store.queueDocumentsReply(
          Number(id),
          fresh,
          new Date('2025-06-02T15:00:00Z'),
          new Date('2025-06-02T14:50:00Z'),
        ),
      ).toBe(true)
      expect(
        await store.queueDocumentsReply(
          Number(id),
          fresh,
          new Date('2025-06-02T15:01:00Z'),
          new Date('2025-06-02T14:51:00Z'),
        ),
      ).toBe(false)
      const key = await addressKeyOf('test-secret-test-secret', 'jane@example.com')
      await store.suppressAddress(key)
      expect(await store.isSuppressed(key)).toBe(true)
    })
  })

  it("assigns a new lead as the function does (20260108000000_roster.sql): takes the roster's turn, records the assignee, queues their mail", async () => {
    await pg.reset()
    const leads = [newLead(), newLead()]
    const mail = (to: string) => ({ ...mailFor(leads[0]!), to, text: `/leads/lead/${leadIdMark}` })
    const assignment = {
      turns: 'roster-test',
      author: 'Roster (in turn)',
      candidates: [
        { assignee: 'alex@example.com', mail: mail('alex@example.com') },
        { assignee: 'sam@example.com', mail: mail('sam@example.com') },
      ],
    }
    const ids = await asLeadWriter(async (db) => {
      const store = createPostgresStore(db, { defaultLaunch })
      const saved = [
        await store.saveLead(leads[0]!, null, [], assignment),
        await store.saveLead(leads[1]!, null, [], assignment),
      ]
      // It may write a new lead's assignment, and never change a follow-up or read the history.
      expect(await refusal(db, "UPDATE public.lead_follow_ups SET status = 'Purchased'")).toMatch(/permission denied/)
      expect(await refusal(db, 'SELECT * FROM public.lead_history')).toMatch(/permission denied/)
      expect(await refusal(db, 'DELETE FROM public.roster_turns')).toMatch(/permission denied/)
      return saved.map((s) => s.lead.id)
    })
    const owner = createPostgresStore(pg.db, { defaultLaunch })
    expect(await Promise.all(ids.map(async (id) => (await owner.followUpOf(id)).assignee))).toEqual([
      'alex@example.com',
      'sam@example.com',
    ])
    const { rows } = await pg.db.query(
      "SELECT lead_id, recipient, mail->>'text' AS text FROM public.outbox WHERE kind = 'assignment' ORDER BY lead_id",
    )
    expect(rows).toEqual(
      ids.map((id, i) => ({
        lead_id: String(id),
        recipient: i ? 'sam@example.com' : 'alex@example.com',
        text: `/leads/lead/${id}`,
      })),
    )
  })

  it('cannot delete or empty leads, change what was stored, or change the tables', async () => {
    await pg.reset()
    const lead = newLead()
    await createPostgresStore(pg.db, { defaultLaunch }).saveLead(lead, mailFor(lead))
    await asLeadWriter(async (db) => {
      const refused = {
        deleteLead: await refusal(db, 'DELETE FROM public.leads'),
        deleteMail: await refusal(db, 'DELETE FROM public.outbox'),
        deleteSuppression: await refusal(db, 'DELETE FROM public.suppressions'),
        truncate: await refusal(db, 'TRUNCATE public.leads CASCADE'),
        updateEmail: await refusal(
          db,
          `UPDATE public.leads SET fields = jsonb_set(fields, '{email}', '"x@example.com"')`,
        ),
        updateConsent: await refusal(db, `UPDATE public.leads SET consent_text = 'changed'`),
        updateLaunch: await refusal(db, `UPDATE public.leads SET launch = 'another-launch'`),
        updateRecipient: await refusal(db, `UPDATE public.outbox SET recipient = 'attacker@example.com'`),
        updateMail: await refusal(db, `UPDATE public.outbox SET mail = '{}'::jsonb`),
        drop: await refusal(db, 'DROP TABLE public.leads CASCADE'),
        alter: await refusal(db, 'ALTER TABLE public.leads ADD COLUMN extra text'),
        create: await refusal(db, 'CREATE TABLE public.sneaky (x int)'),
      }
      // A GRANT without the grant option is only a warning ("no privileges were granted"): check its effect.
      await db.query('GRANT SELECT ON public.leads TO anon')
      expect((await db.query(`SELECT has_table_privilege('anon', 'public.leads', 'SELECT') AS granted`)).rows).toEqual([
        { granted: false },
      ])
      for (const [what, message] of Object.entries(refused)) {
        expect(message ?? `${what} was allowed`, what).toMatch(
          /permission denied|must be owner|must be able to SET ROLE/,
        )
      }
    })
    const { rows } = await pg.db.query(`SELECT fields->>'email' AS email, consent_text, launch FROM public.leads`)
    expect(rows).toEqual([{ email: 'jane@example.com', consent_text: lead.consentText, launch: defaultLaunch }])
  })

  it("stores and reads each lead's launch, and reads a lead from before launches as the default launch's", async () => {
    await pg.reset()
    const before = newLead()
    await createPostgresStore(pg.db, { defaultLaunch }).saveLead(before, mailFor(before))
    await pg.db.query('UPDATE public.leads SET launch = NULL')
    const other = newLead({ launch: 'willowmere-commons' })
    await asLeadWriter(async (db) => {
      const store = createPostgresStore(db, { defaultLaunch })
      expect((await store.saveLead(other, mailFor(other))).lead.launch).toBe('willowmere-commons')
      expect((await store.listLeads(0, 10)).map((l) => l.launch)).toEqual([defaultLaunch, 'willowmere-commons'])
      expect(await store.countLeadsByLaunch()).toEqual([
        { launch: defaultLaunch, leads: 1 },
        { launch: 'willowmere-commons', leads: 1 },
      ])
    })
    // The leads page's search reads the follow-up too, which the function's role has no grant on: it runs as the owner.
    const owner = createPostgresStore(pg.db, { defaultLaunch })
    expect((await owner.searchLeads({ launch: defaultLaunch, limit: 10 })).leads.map((l) => l.submissionId)).toEqual([
      before.submissionId,
    ])
    const { rows } = await pg.db.query(
      `SELECT has_column_privilege('lead_writer', 'public.leads', 'launch', 'INSERT') AS insert,
              has_column_privilege('lead_writer', 'public.leads', 'launch', 'SELECT') AS select,
              has_column_privilege('lead_writer', 'public.leads', 'launch', 'UPDATE') AS update`,
    )
    expect(rows).toEqual([{ insert: true, select: true, update: false }])
  })

  it("serves the release's page on the static host (20260129000000_function_release.sql): reads the lots' models and one realtor's worksheets, stores a worksheet with its messages, and reads no client of another realtor", async () => {
    await pg.reset()
    await pg.exec('TRUNCATE public.lots, public.worksheets, public.worksheet_numbers RESTART IDENTITY CASCADE')
    const owner = createPostgresStore(pg.db, { defaultLaunch })
    const ownerRelease = createPostgresRelease(pg.db)
    const realtor = (email: string) =>
      newLead({ fields: { name: email.split('@')[0]!, email, phone: '555-555-0100', isRealtor: 'yes' } })
    const rita = (await owner.saveLead(realtor('rita@agents.example.com'), null)).lead.id
    const omar = (await owner.saveLead(realtor('omar@agents.example.com'), null)).lead.id
    const at = '2026-03-14T15:00:00.000Z'
    await ownerRelease.importLots(
      defaultLaunch,
      [14, 15].map((n) => ({
        lot: `Lot ${n}`,
        release: 'Phase 1',
        models: ['Maple'],
        frontage: '40 ft',
        price: 899_900,
        status: 'available' as const,
      })),
      at,
    )
    const worksheet = (realtorLeadId: number, realtorEmail: string, clientEmail: string): NewWorksheet => ({
      launch: defaultLaunch,
      realtorLeadId,
      realtorEmail,
      clientName: 'A Client',
      clientEmail,
      clientPhone: '416-555-0199',
      choices: [{ lot: 'Lot 14', model: 'Maple' }],
      depositAccepted: true,
      notes: '',
      receivedAt: at,
    })
    await ownerRelease.saveWorksheet(worksheet(omar, 'omar@agents.example.com', 'omars.client@example.com'), () => [])
    const confirmation = { kind: 'reply' as const, event: 'received', mail: { to: 'rita@agents.example.com' } }

    await asLeadWriter(async (db) => {
      const release = createPostgresRelease(db)
      expect(await release.listLotModels(defaultLaunch)).toEqual([
        { lot: 'Lot 14', models: ['Maple'], status: 'available' },
        { lot: 'Lot 15', models: ['Maple'], status: 'available' },
      ])
      expect((await leftCountsOf(release, defaultLaunch)).left).toEqual({ Maple: 2 })
      expect(await release.firstRealtorLead(rita)).toBe(rita)
      const stored = await release.saveWorksheet(
        worksheet(rita, 'rita@agents.example.com', 'ritas.client@example.com'),
        () => [confirmation],
      )
      expect(stored.number).toBe(2)
      expect((await release.listWorksheets(defaultLaunch, rita)).map((w) => [w.number, w.clientEmail])).toEqual([
        [2, 'ritas.client@example.com'],
      ])

      const refused = {
        clientEmails: await refusal(db, 'SELECT client_email FROM public.worksheets'),
        everyWorksheet: await refusal(db, 'SELECT count(*) FROM public.worksheets'),
        allOfALaunch: await release.listWorksheets(defaultLaunch).then(
          () => undefined,
          (error: Error) => error.message,
        ),
        price: await refusal(db, 'SELECT price FROM public.lots'),
        wholeLot: await refusal(db, 'SELECT * FROM public.lots'),
        allocateLot: await refusal(db, "UPDATE public.lots SET status = 'allocated'"),
        decide: await refusal(db, "UPDATE public.worksheets SET outcome = 'allocated'"),
        erase: await refusal(db, 'DELETE FROM public.worksheets'),
        deleteLot: await refusal(db, 'DELETE FROM public.lots'),
        insertDecided: await refusal(
          db,
          `INSERT INTO public.worksheets (launch, number, realtor_lead_id, realtor_email, client_name, client_email,
             client_phone, choices, deposit_accepted, received_at, outcome)
           VALUES ($1, 99, $2, 'x@example.com', 'X', 'x@example.com', '1', '[]', true, now(), 'allocated')`,
          [defaultLaunch, rita],
        ),
      }
      for (const [what, message] of Object.entries(refused))
        expect(message ?? `${what} was allowed`, what).toMatch(/permission denied/)
    })

    const { rows } = await pg.db.query(
      `SELECT o.lead_id, o.kind, o.recipient FROM public.outbox o WHERE o.recipient LIKE 'worksheet:%' ORDER BY o.id`,
    )
    const ids = (await ownerRelease.listWorksheets(defaultLaunch)).map((w) => [w.number, w.realtorLeadId, w.outcome])
    expect(ids).toEqual([
      [1, omar, 'received'],
      [2, rita, 'received'],
    ])
    const ritaWorksheet = (await ownerRelease.listWorksheets(defaultLaunch, rita))[0]!
    expect(rows).toEqual([
      { lead_id: String(rita), kind: 'reply', recipient: `worksheet:${ritaWorksheet.id}:received` },
    ])
    const definer = await pg.db.query(
      `SELECT p.prosecdef, p.proconfig FROM pg_proc p WHERE p.oid = 'public.realtor_worksheets(text, bigint)'::regprocedure`,
    )
    expect(definer.rows).toEqual([{ prosecdef: true, proconfig: ['search_path=""'] }])
    for (const role of ['anon', 'authenticated', 'service_role']) {
      const granted = await pg.db.query(
        `SELECT has_function_privilege($1, 'public.realtor_worksheets(text, bigint)', 'EXECUTE') AS execute,
                has_sequence_privilege($1, pg_get_serial_sequence('public.worksheets', 'id'), 'USAGE') AS sequence`,
        [role],
      )
      expect(granted.rows, role).toEqual([{ execute: false, sequence: false }])
    }
  })

  it("gives the function's role and Supabase's API roles nothing on the leads page's sessions and the studio's settings, with row level security on", async () => {
    const tables = ['leads_page_sessions', 'leads_page_settings', 'studio_settings']
    const { rows } = await pg.db.query(
      `SELECT relname, relrowsecurity FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relname = ANY($1) ORDER BY relname`,
      [tables],
    )
    expect(rows).toEqual([...tables].sort().map((relname) => ({ relname, relrowsecurity: true })))
    for (const role of ['anon', 'authenticated', 'lead_writer']) {
      for (const table of tables) {
        for (const privilege of ['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER']) {
          const granted = await pg.db.query('SELECT has_table_privilege($1, $2, $3) AS granted', [
            role,
            `public.${table}`,
            privilege,
          ])
          expect((granted.rows[0] as { granted: boolean }).granted, `${role} ${privilege} ${table}`).toBe(false)
        }
      }
    }
    await asLeadWriter(async (db) => {
      expect(await refusal(db, 'SELECT filter FROM public.leads_page_sessions')).toMatch(/permission denied/)
      expect(await refusal(db, "SELECT value FROM public.leads_page_settings WHERE name = 'password_key'")).toMatch(
        /permission denied/,
      )
      expect(await refusal(db, "SELECT value FROM public.studio_settings WHERE name = 'key'")).toMatch(
        /permission denied/,
      )
    })
  })
})
