import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'

/** A webhook call as the receiver saw it, and whether its signature checked out. */
export type ReceivedCall = { headers: IncomingHttpHeaders; body: string; signed: boolean }

/** A CRM stand-in on 127.0.0.1: checks each call's signature the way docs/webhook.md tells a receiver to. */
export type TestReceiver = {
  port: number
  url: string
  calls: ReceivedCall[]
  /** Listens (again) on the same port. */
  start(): Promise<void>
  /** Closes the port: calls meet a refused connection. */
  stop(): Promise<void>
}

/** The check of docs/webhook.md, written with node:crypto (not the server's own code): t=…,v1=… over `${t}.${body}`. */
export function signatureValid(
  secret: string,
  header: string | undefined,
  body: string,
  toleranceSeconds = 300,
): boolean {
  const parts = Object.fromEntries((header ?? '').split(',').map((p) => p.split('=') as [string, string]))
  const t = Number(parts.t)
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > toleranceSeconds || !parts.v1) return false
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest()
  const given = Buffer.from(parts.v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Starts a receiver on `port` (0: any free port). Answers 204 to a well-signed call, 401 otherwise. */
export async function startTestReceiver(secret: string, port = 0): Promise<TestReceiver> {
  const calls: ReceivedCall[] = []
  let server: Server | undefined
  let bound = port
  const receiver: TestReceiver = {
    port: 0,
    url: '',
    calls,
    async start() {
      server = createServer((req, res) => {
        let body = ''
        req.on('data', (c: Buffer) => (body += c.toString()))
        req.on('end', () => {
          const signed = signatureValid(secret, req.headers['webhook-signature'] as string | undefined, body)
          calls.push({ headers: req.headers, body, signed })
          res.writeHead(signed ? 204 : 401).end()
        })
      })
      await new Promise<void>((resolve, reject) => {
        server!.once('error', reject)
        server!.listen(bound, '127.0.0.1', () => resolve())
      })
      const address = server.address()
      bound = typeof address === 'object' && address ? address.port : bound
      receiver.port = bound
      receiver.url = `http://127.0.0.1:${bound}/hooks/leads`
    },
    async stop() {
      const s = server
      server = undefined
      if (!s) return
      s.closeAllConnections()
      await new Promise<void>((resolve) => s.close(() => resolve()))
    },
  }
  await receiver.start()
  return receiver
}
