// The load generator of the benches (bench/backend.ts, bench/cpu-profile.ts): autocannon, with the little of its API
// used here typed (it ships no types), and each of its clients honouring `Connection: close`.
import { createRequire } from 'node:module'

export type AutocannonResult = {
  requests: { average: number; total: number }
  latency: { p50: number; p99: number; average: number; max: number }
  non2xx: number
  errors: number
  timeouts: number
  '2xx': number
}
export type AutocannonRequest = {
  method: string
  path: string
  headers: Record<string, string>
  setupRequest?: (req: Record<string, unknown>, context: Record<string, unknown>) => Record<string, unknown>
  onResponse?: (status: number, body: string, context: Record<string, unknown>) => void
}
export type AutocannonOptions = {
  url: string
  connections: number
  duration?: number
  amount?: number
  timeout?: number
  requests: AutocannonRequest[]
}
/** The little of autocannon's client (lib/httpClient.js) that honouring `Connection: close` needs. */
type AutocannonClient = {
  on(event: 'headers', listener: (info: { shouldKeepAlive: boolean }) => void): void
  _doRequest(): void
  _destroyConnection(): void
  _connect(): void
}
type Autocannon = ((
  options: AutocannonOptions & { setupClient?: (client: AutocannonClient) => void },
) => Promise<AutocannonResult>) & { track?: unknown }

// autocannon ships no types; take it through require with the little of its API used here.
const rawAutocannon = createRequire(import.meta.url)('autocannon') as Autocannon

/**
 * A client that honours `Connection: close` as a browser or a proxy does: its next request goes on a new connection.
 * autocannon does not: after the server's last answer on a connection (maxRequestsPerSocket, 1,000 requests) it kept
 * sending on it, and Node answered every further request 503 (50,000 registrations into a fast run, 50 × 1,000).
 */
function honourConnectionClose(client: AutocannonClient): void {
  let closing = false
  client.on('headers', (info) => {
    closing = !info.shouldKeepAlive
  })
  const next = client._doRequest.bind(client)
  client._doRequest = () => {
    if (!closing) return next()
    closing = false
    // _connect sends the first request on the new connection itself.
    client._destroyConnection()
    client._connect()
  }
}

/** autocannon, its clients honouring `Connection: close`. */
export const autocannon = (options: AutocannonOptions) =>
  rawAutocannon({ ...options, setupClient: honourConnectionClose })
