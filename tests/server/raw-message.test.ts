import nodemailer from 'nodemailer'
import MailComposer from 'nodemailer/lib/mail-composer'
import { describe, expect, it } from 'vitest'
import { sharedRun, withCrlf } from '../../src/server/delivery/mailers/eml-mailer.ts'
import { composeRawMessage } from '../../src/server/delivery/mailers/raw-message.ts'
import { toNodemailerMessage } from '../../src/server/delivery/mailers/smtp-mailer.ts'
import type { OutgoingMail } from '../../src/server/store/store.ts'

const from = 'Bramblewood Crossing <no-reply@example.com>'

/** A message as the outbox hands it to the SMTP mailer, with `text` and `html` as given. */
function mail(text: string, html?: string, subject = 'You are on the VIP list — Bramblewood Crossing'): OutgoingMail {
  return {
    to: 'visitor@example.com',
    fromName: 'Bramblewood « Sales »',
    replyTo: 'sales@example.com',
    subject,
    text,
    ...(html === undefined ? {} : { html }),
    messageId: '<lead-1-reply@example.com>',
    idempotencyKey: 'lead-1-reply',
    headers: { 'List-Unsubscribe': '<https://example.com/u/1>', 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  } as OutgoingMail
}

/** What MailComposer's streams build for the same message, with the same boundary and Date. */
async function streamed(message: OutgoingMail, raw: Buffer): Promise<Buffer> {
  const baseBoundary = /_NmP-([0-9a-f]+)-Part/.exec(raw.toString('latin1'))?.[1]
  const options = { ...toNodemailerMessage(message, from), date: new Date(0), baseBoundary }
  return new MailComposer(options).compile().build()
}

const cases: Array<[string, OutgoingMail]> = [
  ['plain ASCII text and HTML', mail('Thank you for registering.\n', '<p>Thank you.</p>')],
  ['accents and a line past 76 characters', mail(`Zoë Ärger\n${'long '.repeat(40)}\n`, '<p>Zoë</p>')],
  ['a line that starts with a dot', mail('.hidden?\n..two\n', '<p>.x</p>')],
  ['text that ends with spaces and a tab', mail('ends with spaces  \nand a tab\t', '<p>x </p>  ')],
  ['whitespace that ends a wrapped line', mail(`é ${'long '.repeat(40)}`, undefined)],
  ['whitespace that ends a line wrapped after line breaks', mail(`one\r\ntwo\r\n${'long '.repeat(40)}`, undefined)],
  ['CRLF line breaks', mail('one\r\ntwo\r\n', '<p>one</p>\r\n<p>two</p>\r\n')],
  ['a text that ends with a CR', mail('one\r', undefined)],
  ['mostly non-Latin HTML (base64)', mail('Привет', `<p>${'Привет мир '.repeat(400)}</p>`)],
  ['a part past 64 KiB (the streams compose it)', mail(`${'x'.repeat(70_000)} é `, `<b>${'z'.repeat(70_000)}</b>`)],
  ['a long subject of many scripts', mail('x', '<p>x</p>', `Übersicht — 概要 — ${'Bramblewood '.repeat(8)}`)],
]

describe('composeRawMessage (one pass over MailComposer and its encoders)', () => {
  it.each(cases)('gives the bytes MailComposer streams: %s', async (_name, message) => {
    const options = { ...toNodemailerMessage(message, from), date: new Date(0) }
    const ours = await composeRawMessage(options)
    expect(ours.raw.toString('latin1')).toBe((await streamed(message, ours.raw)).toString('latin1'))
    expect(ours.envelope).toEqual({ from: 'no-reply@example.com', to: ['visitor@example.com'] })
  })

  it('gives each message a boundary of its own, not one a visitor could guess and write into a field', async () => {
    const options = toNodemailerMessage(mail('same', '<p>same</p>'), from)
    const boundaries = new Set<string>()
    for (let i = 0; i < 600; i++) {
      const { raw } = await composeRawMessage(options)
      boundaries.add(/boundary="([^"]+)"/.exec(raw.toString('latin1'))![1]!)
    }
    expect(boundaries.size).toBe(600)
  })

  it.each(cases)(
    ".eml bytes as nodemailer's stream transport writes them (CRLF line breaks): %s",
    async (_name, message) => {
      const options = { ...toNodemailerMessage(message, from), date: new Date(0) }
      const ours = withCrlf((await composeRawMessage(options)).raw).toString('latin1')
      const baseBoundary = /_NmP-([0-9a-f]+)-Part/.exec(ours)?.[1]
      const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
      const theirs = (await transport.sendMail({ ...options, baseBoundary })).message as Buffer
      expect(ours).toBe(theirs.toString('latin1'))
    },
  )
})

describe('sharedRun (the .eml directory fsync shared by sends at once)', () => {
  it('answers each caller with a run that started after it asked, and shares runs among callers', async () => {
    const starts: number[] = []
    let clock = 0
    const run = sharedRun(async () => {
      starts.push((clock += 1))
      await new Promise((resolve) => setTimeout(resolve, 5))
    })
    const calls = Array.from({ length: 30 }, async (_, i) => {
      await new Promise((resolve) => setTimeout(resolve, i % 7))
      const askedAt = (clock += 1)
      const before = starts.length
      await run()
      // A run that started after this call: its start is later than the call's moment.
      expect(starts.slice(before).some((startedAt) => startedAt > askedAt)).toBe(true)
    })
    await Promise.all(calls)
    expect(starts.length).toBeGreaterThan(1)
    expect(starts.length).toBeLessThan(30)
  })

  it('a failed run fails its callers, and the next caller starts a new one', async () => {
    let runs = 0
    const run = sharedRun(async () => {
      runs += 1
      if (runs === 1) throw new Error('disk gone')
    })
    await expect(run()).rejects.toThrow('disk gone')
    await expect(run()).resolves.toBeUndefined()
    expect(runs).toBe(2)
  })
})
