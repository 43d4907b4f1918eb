import type { Server } from 'node:http'
import { serve, type Http2Bindings, type HttpBindings } from '@hono/node-server'
import type { ConnectionLimits } from './node-options.ts'

/**
 * Listens on host:port with Node's HTTP server and the given connection limits (slow-loris cut-offs, keep-alive,
 * connection count); resolves once listening, rejects with Node's error (EADDRINUSE …) when it cannot.
 */
export function listen(
  fetch: (request: Request, env: HttpBindings | Http2Bindings) => Response | Promise<Response>,
  port: number,
  hostname: string,
  limits: ConnectionLimits,
): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = serve({
      fetch,
      port,
      hostname,
      // The interval can only be given at creation; the rest are set on the server below.
      serverOptions: { connectionsCheckingInterval: limits.checkIntervalMs },
    }) as Server
    s.headersTimeout = limits.headersTimeoutMs
    s.requestTimeout = limits.requestTimeoutMs
    s.keepAliveTimeout = limits.keepAliveTimeoutMs
    s.maxRequestsPerSocket = limits.maxRequestsPerSocket
    s.maxConnections = limits.maxConnections
    s.once('listening', () => resolve(s))
    s.once('error', reject)
  })
}
