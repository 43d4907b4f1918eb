import { describe, expect, it } from 'vitest'
import { createLaunchChooser } from '../../src/server/registration/launch-choice.ts'

const launches = [
  { slug: 'home', origins: ['https://home.example.com'] },
  { slug: 'east', origins: ['https://east.example.com', 'https://shared.example.com'] },
  { slug: 'west', origins: ['https://west.example.com', 'https://shared.example.com'] },
]

describe('createLaunchChooser', () => {
  const choose = createLaunchChooser({ launches, defaultLaunch: 'home', allowedOrigins: [] })

  it('takes the one launch an origin leaves, named or not', () => {
    expect(choose({ origin: 'https://east.example.com', host: 'fn.example', named: undefined })).toEqual({
      ok: true,
      slug: 'east',
    })
    expect(choose({ origin: 'https://east.example.com', host: 'fn.example', named: 'east' })).toEqual({
      ok: true,
      slug: 'east',
    })
    expect(choose({ origin: 'https://east.example.com', host: 'fn.example', named: ' east ' })).toEqual({
      ok: true,
      slug: 'east',
    })
  })

  it('asks which launch when an origin leaves several and the default launch is not among them', () => {
    expect(choose({ origin: 'https://shared.example.com', host: 'fn.example', named: undefined })).toEqual({
      ok: false,
      status: 400,
      error: 'Say which launch this registration is for: send "launch" with its page\'s launch.slug.',
    })
    expect(choose({ origin: 'https://shared.example.com', host: 'fn.example', named: 'west' })).toEqual({
      ok: true,
      slug: 'west',
    })
  })

  it('refuses a launch the origin is not one of, and a launch that does not exist', () => {
    expect(choose({ origin: 'https://shared.example.com', host: 'fn.example', named: 'home' })).toMatchObject({
      ok: false,
      status: 403,
    })
    expect(choose({ origin: 'https://east.example.com', host: 'fn.example', named: 'nowhere' })).toEqual({
      ok: false,
      status: 400,
      error: 'There is no launch "nowhere" here.',
    })
    expect(choose({ origin: 'https://evil.example', host: 'fn.example', named: undefined })).toMatchObject({
      ok: false,
      status: 403,
    })
  })

  it('gives a same-origin caller the launch of its host, and any other host the default launch', () => {
    const node = createLaunchChooser({
      launches,
      defaultLaunch: 'home',
      allowedOrigins: [],
      launchOfHost: (host) => (host === 'west.localhost:3000' ? 'west' : undefined),
    })
    expect(node({ origin: 'http://west.localhost:3000', host: 'west.localhost:3000', named: undefined })).toEqual({
      ok: true,
      slug: 'west',
    })
    expect(node({ origin: 'http://west.localhost:3000', host: 'west.localhost:3000', named: 'east' })).toMatchObject({
      ok: false,
      status: 403,
    })
    expect(node({ origin: 'http://192.0.2.1', host: '192.0.2.1', named: undefined })).toEqual({
      ok: true,
      slug: 'home',
    })
    expect(node({ origin: undefined, host: '192.0.2.1', named: 'west' })).toEqual({
      ok: false,
      status: 403,
      error: 'A request to 192.0.2.1 cannot register for launch "west": it is not one of that launch\'s addresses.',
    })
  })

  it('will not start without its default launch among the launches', () => {
    expect(() => createLaunchChooser({ launches, defaultLaunch: 'north', allowedOrigins: [] })).toThrow(/"north"/)
  })
})
