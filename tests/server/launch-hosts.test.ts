import { describe, expect, it } from 'vitest'
import { createLaunchHosts, hostNameOf } from '../../src/server/site/launch-hosts.ts'

const launches = [
  { slug: 'bramblewood-crossing', canonicalUrl: 'https://bramblewood.example.com/' },
  {
    slug: 'maple-ridge',
    canonicalUrl: 'https://maple-ridge.example.com/',
    origins: ['https://www.mapleridge.example.org', 'http://preview.example.net:8080'],
  },
]

describe('createLaunchHosts', () => {
  const launchOfHost = createLaunchHosts(launches, 'bramblewood-crossing')

  it('serves a launch on the host of its canonical URL, with or without a port, in any case', () => {
    expect(launchOfHost('maple-ridge.example.com')).toBe('maple-ridge')
    expect(launchOfHost('Maple-Ridge.Example.com:443')).toBe('maple-ridge')
    expect(launchOfHost('maple-ridge.example.com.')).toBe('maple-ridge')
    expect(launchOfHost('bramblewood.example.com')).toBe('bramblewood-crossing')
  })

  it('serves a launch on the hosts of its further origins', () => {
    expect(launchOfHost('www.mapleridge.example.org')).toBe('maple-ridge')
    expect(launchOfHost('preview.example.net:8080')).toBe('maple-ridge')
  })

  it('serves a launch on <slug>.localhost at any port', () => {
    expect(launchOfHost('maple-ridge.localhost:3000')).toBe('maple-ridge')
    expect(launchOfHost('maple-ridge.localhost:49152')).toBe('maple-ridge')
    expect(launchOfHost('maple-ridge.localhost')).toBe('maple-ridge')
    expect(launchOfHost('bramblewood-crossing.localhost:3000')).toBe('bramblewood-crossing')
  })

  it('gives every other host, or none, the default launch', () => {
    expect(launchOfHost('localhost:3000')).toBe('bramblewood-crossing')
    expect(launchOfHost('127.0.0.1:3000')).toBe('bramblewood-crossing')
    expect(launchOfHost('[::1]:3000')).toBe('bramblewood-crossing')
    expect(launchOfHost('203.0.113.7')).toBe('bramblewood-crossing')
    expect(launchOfHost('unknown.localhost:3000')).toBe('bramblewood-crossing')
    expect(launchOfHost('maple-ridge.example.com.evil.example')).toBe('bramblewood-crossing')
    expect(launchOfHost('')).toBe('bramblewood-crossing')
    expect(launchOfHost(undefined)).toBe('bramblewood-crossing')
  })

  it('keeps a host two launches claim for the default launch', () => {
    const copied = createLaunchHosts(
      [
        { slug: 'cedar-park', canonicalUrl: 'https://bramblewood.example.com/' },
        { slug: 'bramblewood-crossing', canonicalUrl: 'https://bramblewood.example.com/' },
      ],
      'bramblewood-crossing',
    )
    expect(copied('bramblewood.example.com')).toBe('bramblewood-crossing')
    expect(copied('cedar-park.localhost:3000')).toBe('cedar-park')
  })
})

describe('hostNameOf', () => {
  it('drops the port and brackets, and lower-cases', () => {
    expect(hostNameOf('Example.COM:8080')).toBe('example.com')
    expect(hostNameOf('[2001:db8::1]:443')).toBe('2001:db8::1')
    expect(hostNameOf(' example.com ')).toBe('example.com')
  })
})
