import { serve } from '@hono/node-server'
import { Hono } from 'hono'

// The empty handler of `npm run bench:backend`: the server's HTTP stack (Node, @hono/node-server, Hono) reading each
// JSON body and answering 200, with nothing else: what the registrations' rate is measured against.
const app = new Hono()
app.all('*', async (c) => {
  await c.req.json().catch(() => undefined)
  return c.json({ ok: true })
})
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
  console.log(`Listening on http://127.0.0.1:${info.port}`),
)
process.on('SIGTERM', () => server.close(() => process.exit(0)))
