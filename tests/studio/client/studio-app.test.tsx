// @vitest-environment happy-dom
import { act, cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { LaunchSummary } from '../../../src/studio/protocol.ts'
import { StudioApp } from '../../../src/studio/client/StudioApp.tsx'

const launches: LaunchSummary[] = [
  { slug: 'maple-ridge', siteName: 'Maple Ridge', status: 'live', localUrl: 'http://maple-ridge.localhost/', liveVersion: 3, draft: { by: 'sam@example.com', updatedAt: '2026-11-25T16:00:00Z' } },
  { slug: 'bramblewood', siteName: 'Bramblewood Crossing', status: 'broken', localUrl: 'http://bramblewood.localhost/' },
]

function answer(routes: Record<string, [number, unknown]>) {
  return vi.fn(async (input: RequestInfo | URL) => {
    const path = new URL(String(input), 'http://studio.test').pathname
    const [status, body] = routes[path] ?? [404, { error: 'Not found.' }]
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
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
    await act(async () => void render(<StudioApp />))
    expect((await screen.findByRole('link', { name: 'Sign in' })).getAttribute('href')).toBe('/studio/sign-in')
    expect(assign).toHaveBeenCalledWith('/studio/sign-in')
  })

  it("lists the launches by site name with their status and whose draft exists; an editor sees no People", async () => {
    vi.stubGlobal('fetch', answer({ '/studio/api/me': [200, { email: 'ed@example.com', role: 'editor', totp: false }], '/studio/api/launches': [200, launches] }))
    window.history.replaceState(null, '', '/studio/')
    await act(async () => void render(<StudioApp />))
    const list = await screen.findByRole('list', { name: 'Launches' })
    const link = within(list).getByRole('link', { name: 'Maple Ridge' })
    expect(link.getAttribute('href')).toBe('/studio/launches/maple-ridge')
    expect(list.textContent).toContain('Draft by sam@example.com')
    expect(list.textContent).toContain('Problems on disk')
    expect(list.textContent).toContain('No draft')
    expect(screen.queryByRole('link', { name: 'People' })).toBeNull()
    expect(screen.getAllByRole('link', { name: 'New launch' }).length).toBeGreaterThan(0)
    expect(within(screen.getByRole('navigation', { name: 'Studio' })).getByRole('link', { name: 'Leads' }).getAttribute('href')).toBe('/leads')
  })

  it('shows a sales account only the way to the leads page: no launches, no editor', async () => {
    const fetchMock = answer({ '/studio/api/me': [200, { email: 'sal@example.com', role: 'sales', totp: false }], '/studio/api/launches': [403, { error: 'No.' }] })
    vi.stubGlobal('fetch', fetchMock)
    window.history.replaceState(null, '', '/studio/')
    await act(async () => void render(<StudioApp />))
    expect((await screen.findByRole('link', { name: 'Open the leads page' })).getAttribute('href')).toBe('/leads')
    expect(screen.queryByRole('list', { name: 'Launches' })).toBeNull()
    expect(screen.queryByRole('link', { name: 'New launch' })).toBeNull()
    expect(screen.getByRole('button', { name: 'Sign out' })).toBeTruthy()
    expect(fetchMock.mock.calls.map(([input]) => new URL(String(input), 'http://studio.test').pathname)).toEqual(['/studio/api/me'])
  })

  it('shows the server’s own words when it refuses', async () => {
    vi.stubGlobal('fetch', answer({ '/studio/api/me': [200, { email: 'o@example.com', role: 'owner', totp: false }], '/studio/api/launches': [403, { error: 'You may not see these launches.' }] }))
    window.history.replaceState(null, '', '/studio/')
    await act(async () => void render(<StudioApp />))
    expect((await screen.findByRole('alert')).textContent).toBe('You may not see these launches.')
    expect(screen.getByRole('link', { name: 'People' })).toBeTruthy()
  })
})
