import ipaddr from 'ipaddr.js'
import { rateLimitKey } from '../../server/client-address.ts'

/**
 * The studio's sign-in limits (issue 21 item 3): failures a minute per address (an IPv6 /64), per IPv6 /48 and per
 * account over all clients; a client holding a device cookie from a successful sign-in to that account in the last
 * 30 days is exempt from the per-account and /48 budgets, so an attacker cannot lock the team out. In memory, one
 * process. Behind `SignInLimiter` so the shared limiter of src/server (built for the leads page) can replace it.
 */

/** One sign-in attempt as the limiter sees it. */
export type SignInAttempt = {
  /** The client's address as the server saw it (a trusted proxy's, else the socket's). */
  address: string
  /** The account typed, normalised (normalizeEmail). */
  account: string
  /** The client holds a valid device cookie for this account. */
  trustedDevice: boolean
}

/** Allowed, or refused with the seconds to wait and which budget ran out (for the log). */
export type SignInVerdict = { allowed: true } | { allowed: false; retryAfterSeconds: number; budget: 'address' | 'network' | 'account' }

/** What the studio asks of a sign-in limiter. */
export type SignInLimiter = {
  /** Whether this attempt may be tried at all (before the password is checked). */
  check(attempt: SignInAttempt, nowMs: number): SignInVerdict
  /** Counts a failed attempt against every budget it falls under. */
  fail(attempt: SignInAttempt, nowMs: number): void
}

/** The budgets: failures within `windowMs`. */
export type SignInBudgets = { perAddress: number; perNetwork: number; perAccount: number; windowMs: number }

/** Issue 21's numbers: 10 per address (/64), 30 per /48, 10 per account, in a minute. */
export const defaultSignInBudgets: SignInBudgets = { perAddress: 10, perNetwork: 30, perAccount: 10, windowMs: 60_000 }

/** The /48 an IPv6 address is in; undefined for IPv4 (its per-address budget is the limit there). */
export function networkKeyOf(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return undefined
  const ip = ipaddr.process(address)
  if (ip.kind() === 'ipv4') return undefined
  return `${(ip as ipaddr.IPv6).parts.slice(0, 3).map((part) => part.toString(16)).join(':')}::/48`
}

/** An in-memory sliding-window limiter; at most `maxKeys` keys per budget are remembered (the oldest go first). */
export function createSignInLimiter(budgets: SignInBudgets = defaultSignInBudgets, maxKeys = 20_000): SignInLimiter {
  const failures = { address: new Map<string, number[]>(), network: new Map<string, number[]>(), account: new Map<string, number[]>() }

  function recent(map: Map<string, number[]>, key: string, nowMs: number): number[] {
    const times = (map.get(key) ?? []).filter((t) => nowMs - t < budgets.windowMs)
    if (times.length) map.set(key, times)
    else map.delete(key)
    return times
  }
  function keysOf(attempt: SignInAttempt) {
    return {
      address: rateLimitKey(attempt.address),
      network: attempt.trustedDevice ? undefined : networkKeyOf(attempt.address),
      account: attempt.trustedDevice ? undefined : `account:${attempt.account}`,
    }
  }
  const limits = { address: budgets.perAddress, network: budgets.perNetwork, account: budgets.perAccount }

  return {
    check(attempt, nowMs) {
      const keys = keysOf(attempt)
      for (const budget of ['address', 'network', 'account'] as const) {
        const key = keys[budget]
        if (key === undefined) continue
        const times = recent(failures[budget], key, nowMs)
        if (times.length >= limits[budget]) {
          const wait = times[times.length - limits[budget]]! + budgets.windowMs - nowMs
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)), budget }
        }
      }
      return { allowed: true }
    },
    fail(attempt, nowMs) {
      const keys = keysOf(attempt)
      for (const budget of ['address', 'network', 'account'] as const) {
        const key = keys[budget]
        if (key === undefined) continue
        const map = failures[budget]
        const times = recent(map, key, nowMs)
        map.delete(key)
        if (map.size >= maxKeys) map.delete(map.keys().next().value!)
        map.set(key, [...times, nowMs])
      }
    },
  }
}
