// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { LaunchSummary } from '../../../src/studio/protocol.ts'
import { StudioApp } from '../../../src/studio/client/StudioApp.tsx'

const launches: LaunchSummary[] = [
  {
    slug: 'maple-ridge',
    siteName: 'Maple Ridge',
    status: 'live',
    localUrl: 'http://maple-ridge.localhost/',
    liveVersion: 3,
    draft: { by: 'sam@example.com', updatedAt: '2026-11-25T16:00:00Z' },
  },
  {
    slug: 'bramblewood',
    siteName: 'Bramblewood Crossing',
    status: 'broken',
    localUrl: 'http://bramblewood.localhost/',
  },
]

/** The address a fetch was called with, whatever form it took. */
function urlOf(input: RequestInfo | URL): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
}

function answer(routes: Record<string, [number, unknown]>) {
  return vi.fn((input: RequestInfo | URL) => {
    const path = new URL(urlOf(input), 'http://studio.test').pathname
    const [status, body] = routes[path] ?? [404, { error: 'Not found.' }]
    return Promise.resolve(
      new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
    )
  })
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('StudioApp', () => {
  it("sends a person whose session has ended to the server's sign-in page", async () => {
    vi.stubGlobal('fetch', answer({ '/studio/api/me': [401, { error: 'Sign in first.' }] }))
    const assign = vi.spyOn(window.location, 'assign').mockImplementation(() => {})
    window.history.replaceState(null, '', '/studio/')
    await act(() => Promise.resolve(void render(<StudioApp />)))
    expect((await screen.findByRole('link', { name: 'Sign in' })).getAttribute('href')).toBe('/studio/sign-in')
    expect(assign).toHaveBeenCalledWith('/studio/sign-in')
  })

  it('lists the launches by site name with their status and whose draft exists; an editor sees no People', async () => {
    vi.stubGlobal(
      'fetch',
      answer({
        '/studio/api/me': [200, { email: 'ed@example.com', role: 'editor', totp: false }],
        '/studio/api/launches': [200, launches],
      }),
    )
    window.history.replaceState(null, '', '/studio/')
    await act(() => Promise.resolve(void render(<StudioApp />)))
    const list = await screen.findByRole('list', { name: 'Launches' })
    const link = within(list).getByRole('link', { name: 'Maple Ridge' })
    expect(link.getAttribute('href')).toBe('/studio/launches/maple-ridge')
    expect(list.textContent).toContain('Draft by sam@example.com')
    expect(list.textContent).toContain('Problems on disk')
    expect(list.textContent).toContain('No draft')
    expect(screen.queryByRole('link', { name: 'People' })).toBeNull()
    expect(screen.getAllByRole('link', { name: 'New launch' }).length).toBeGreaterThan(0)
    expect(
      within(screen.getByRole('navigation', { name: 'Studio' }))
        .getByRole('link', { name: 'Leads' })
        .getAttribute('href'),
    ).toBe('/leads')
  })

  it("shows a sales account only the way to the leads page and its launches' Allocation: no editor", async () => {
    const fetchMock = answer({
      '/studio/api/me': [200, { email: 'sal@example.com', role: 'sales', totp: false }],
      '/studio/api/launches': [403, { error: 'No.' }],
      '/studio/api/allocation': [200, { launches: [{ slug: 'maple-ridge', siteName: 'Maple Ridge' }] }],
    })
    vi.stubGlobal('fetch', fetchMock)
    window.history.replaceState(null, '', '/studio/')
    await act(() => Promise.resolve(void render(<StudioApp />)))
    expect((await screen.findByRole('link', { name: 'Open the leads page' })).getAttribute('href')).toBe('/leads')
    expect(screen.queryByRole('list', { name: 'Launches' })).toBeNull()
    expect(screen.queryByRole('link', { name: 'New launch' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeTruthy()
    const allocation = await screen.findByRole('link', { name: 'Allocation: Maple Ridge' })
    expect(allocation.getAttribute('href')).toBe('/studio/launches/maple-ridge/allocation')
    expect(fetchMock.mock.calls.map(([input]) => new URL(urlOf(input), 'http://studio.test').pathname)).toEqual([
      '/studio/api/me',
      '/studio/api/allocation',
    ])
  })

  it('shows the server’s own words when it refuses', async () => {
    vi.stubGlobal(
      'fetch',
      answer({
        '/studio/api/me': [200, { email: 'o@example.com', role: 'owner', totp: false }],
        '/studio/api/launches': [403, { error: 'You may not see these launches.' }],
      }),
    )
    window.history.replaceState(null, '', '/studio/')
    await act(() => Promise.resolve(void render(<StudioApp />)))
    expect((await screen.findByRole('alert')).textContent).toBe('You may not see these launches.')
    expect(screen.getByRole('link', { name: 'People' })).toBeTruthy()
  })

  it('New launch: shows the server’s words at each field it names, then opens the new launch', async () => {
    const sent: unknown[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn((input: RequestInfo | URL, init?: RequestInit) => {
        const path = new URL(urlOf(input), 'http://studio.test').pathname
        const json = (status: number, body: unknown) =>
          Promise.resolve(
            new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }),
          )
        if (path === '/studio/api/me') return json(200, { email: 'o@example.com', role: 'owner', totp: false })
        if (path === '/studio/api/launches' && init?.method === 'POST') {
          sent.push(JSON.parse(init.body as string))
          return sent.length === 1
            ? json(400, {
                error: 'Some fields need a change: see the message at each one.',
                fields: { phone: 'Write the phone number with its area code, e.g. (555) 555-0199.' },
              })
            : json(201, { slug: 'willow-bend', siteName: 'Willow Bend', localUrl: 'http://willow-bend.localhost/' })
        }
        if (path === '/studio/api/launches') return json(200, launches)
        return json(404, { error: 'Not found.' })
      }),
    )
    window.history.replaceState(null, '', '/studio/?view=new-launch')
    await act(() => Promise.resolve(void render(<StudioApp />)))
    await screen.findByRole('option', { name: 'Bramblewood Crossing' })
    fireEvent.change(screen.getByLabelText(/^Development name/), { target: { value: 'Willow Bend' } })
    expect(screen.getByLabelText<HTMLInputElement>(/^Short name/).value).toBe('willow-bend')
    fireEvent.change(screen.getByLabelText(/^Phone/), { target: { value: 'call us' } })
    await act(() => Promise.resolve(void fireEvent.click(screen.getByRole('button', { name: 'New launch' }))))
    const phone = screen.getByLabelText(/^Phone/)
    expect(phone.getAttribute('aria-invalid')).toBe('true')
    const message = document.getElementById(phone.getAttribute('aria-describedby')!.split(' ')[1]!)
    expect(message?.textContent).toBe('Write the phone number with its area code, e.g. (555) 555-0199.')
    expect(screen.getByLabelText(/^E-mail/).getAttribute('aria-invalid')).toBeNull()
    expect(sent[0]).toMatchObject({ from: 'maple-ridge', name: 'Willow Bend', slug: 'willow-bend', phone: 'call us' })

    fireEvent.change(phone, { target: { value: '(555) 555-0123' } })
    await act(() => Promise.resolve(void fireEvent.click(screen.getByRole('button', { name: 'New launch' }))))
    expect(window.location.pathname).toBe('/studio/launches/willow-bend')
  })
})
