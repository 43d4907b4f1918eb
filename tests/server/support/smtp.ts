import { SMTPServer } from 'smtp-server'

/** A message as the SMTP server received it. */
export type ReceivedMail = {
  mailFrom: string
  rcptTo: string[]
  raw: string
  /** Header names (lower case) → values, unfolded; repeated headers keep every value. */
  headers: Map<string, string[]>
  /** The whole body with quoted-printable soft breaks and escapes decoded (good enough to search text in). */
  decoded: string
  /** When it was received (epoch ms). */
  at: number
}

/** A real SMTP server on 127.0.0.1 that keeps what it receives. */
export type TestSmtp = {
  port: number
  received: ReceivedMail[]
  /** Errors of clients' connections (ECONNRESET when a client is killed), in order. */
  connectionErrors: Error[]
  /** Makes the next `count` RCPT commands fail temporarily (451), like a greylisting or overloaded server. */
  refuseNext(count: number): void
  /** Answers every message's DATA with this code (e.g. 550: refused for good, 451: try later); undefined accepts. */
  refuseAll(code: number | undefined): void
  /** Waits this long before accepting each message (a slow server); it is counted as received before the wait. */
  delayEach(ms: number): void
  /**
   * Answers every RCPT with `code` (421: too busy, closing the connection; 451: rate limited) for `ms` from the first
   * one it answers so; each such answer's time is kept in `busyAnswers`.
   */
  busyFor(ms: number, code?: number): void
  /** When each RCPT was answered busy (epoch ms). */
  busyAnswers: number[]
  stop(): Promise<void>
}

function parse(raw: string, mailFrom: string, rcptTo: string[]): ReceivedMail {
  const split = raw.indexOf('\r\n\r\n')
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ')
  const headers = new Map<string, string[]>()
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    headers.set(name, [...(headers.get(name) ?? []), line.slice(colon + 1).trim()])
  }
  const bytes = raw
    .slice(split + 4)
    .replace(/=\r\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
  const decoded = Buffer.from(bytes, 'latin1').toString('utf8')
  return { mailFrom, rcptTo, raw, headers, decoded, at: Date.now() }
}

/** Starts an SMTP server on `port` (0: any free port). */
export async function startTestSmtp(port = 0): Promise<TestSmtp> {
  const received: ReceivedMail[] = []
  let refusals = 0
  let refuseCode: number | undefined
  let delayMs = 0
  let busy: { ms: number; code: number; since: number | undefined } | undefined
  const busyAnswers: number[] = []
  const server = new SMTPServer({
    authOptional: true,
    hideSTARTTLS: true,
    disableReverseLookup: true,
    logger: false,
    // Pooled clients keep idle connections open; do not wait 30 s for them on stop().
    closeTimeout: 100,
    onRcptTo(_address, _session, callback) {
      const now = Date.now()
      if (busy && now - (busy.since ??= now) < busy.ms) {
        busyAnswers.push(now)
        const error = new Error('Too many messages, slow down') as Error & { responseCode: number }
        error.responseCode = busy.code
        callback(error)
        return
      }
      if (refusals > 0) {
        refusals -= 1
        const error = new Error('Try again later') as Error & { responseCode: number }
        error.responseCode = 451
        callback(error)
        return
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        if (refuseCode !== undefined) {
          const error = new Error(refuseCode >= 500 ? 'Mailbox unavailable' : 'Try again later') as Error & {
            responseCode: number
          }
          error.responseCode = refuseCode
          callback(error)
          return
        }
        const mailFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : ''
        received.push(
          parse(
            Buffer.concat(chunks).toString('latin1'),
            mailFrom,
            session.envelope.rcptTo.map((r) => r.address),
          ),
        )
        if (delayMs > 0) setTimeout(() => callback(), delayMs)
        else callback()
      })
    },
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  // A client's connection that breaks (a delivery process killed mid-message resets it) is that client's problem, as
  // for a real SMTP server: kept here, not thrown (smtp-server emits it on the server, and unheard it would be
  // uncaught).
  const connectionErrors: Error[] = []
  server.on('error', (error: Error) => connectionErrors.push(error))
  const address = server.server.address()
  return {
    port: typeof address === 'object' && address ? address.port : port,
    received,
    connectionErrors,
    refuseNext(count) {
      refusals = count
    },
    refuseAll(code) {
      refuseCode = code
    },
    delayEach(ms) {
      delayMs = ms
    },
    busyFor(ms, code = 421) {
      busy = { ms, code, since: undefined }
    },
    busyAnswers,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
