// @vitest-environment happy-dom
import { createServer, type Server } from 'node:http'
import { cleanup, render, screen } from '@testing-library/react'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { LeftCount } from '../../src/ui/LeftCount.tsx'

// Issue 45 on a static host: the count asks the address its island was given (the hosted function's left.json for the
// page's launch: tests/sections/home-types-left-source.test.tsx), here of a real HTTP server on 127.0.0.1 standing
// where the function would, once for the page.

const slug = 'bramblewood-crossing'

afterEach(() => cleanup())

describe("the home types' count in the browser", () => {
  let server: Server
  let functionUrl = ''
  const asked: string[] = []
  beforeAll(async () => {
    server = createServer((req, res) => {
      asked.push(`${req.method} ${req.url}`)
      res
        .writeHead(req.method === 'OPTIONS' ? 204 : 200, {
          'content-type': 'application/json',
          'access-control-allow-origin': req.headers.origin ?? '*',
          'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '',
        })
        .end(
          req.method === 'GET'
            ? JSON.stringify({ left: { Maple: 2 }, available: [['Maple'], ['Maple']], inventory: true })
            : undefined,
        )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    functionUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('asks the address its island gives, once for the page, and shows the count', async () => {
    const source = `${functionUrl}/functions/v1/send-contact-email/left.json?launch=${slug}`
    render(
      <>
        <LeftCount models={['Maple']} source={source} />
        <LeftCount models={['Birch']} source={source} />
      </>,
    )
    expect(await screen.findByText('2 left', undefined, { timeout: 5_000 })).toBeTruthy()
    expect(await screen.findByText('Sold out')).toBeTruthy()
    // happy-dom preflights (OPTIONS) where a browser sends this simple GET as it is; either way, one reading a page.
    expect(asked.filter((request) => request.startsWith('GET'))).toEqual([
      `GET /functions/v1/send-contact-email/left.json?launch=${slug}`,
    ])
  })
})
