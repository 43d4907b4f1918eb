/**
 * The sign-in limiter for password sign-ins (the leads page; the studio's accounts): budgets of failures that a
 * botnet or a whole IPv6 allocation cannot rotate away, and that an attacker cannot spend to lock the team out.
 *
 * Budgets, each over the last `windowMs` (a minute):
 *   address  10 failures per client address (an IPv6 client by its /64: one household or phone has a whole /64)
 *   network  30 failures per IPv6 /48 (one site's allocation: rotating /64s inside it does not help)
 *   account  10 failures per account, over all clients together
 * A client holding a device cookie from a successful sign-in to the account in the last 30 days is exempt from the
 * network and account budgets (its own address budget still holds), so the team keeps signing in during an attack.
 *
 * The counts live behind the store contract (store/sign-in-counts.ts): several servers sharing a database share them.
 * Web-standard APIs and ipaddr.js only.
 */
import { logValue } from '../../../schema/log-value.ts'
import ipaddr from 'ipaddr.js'
import type { SignInCounts } from '../store/sign-in-counts.ts'

/** How many failures each budget allows in a window, and how long a device stays known. */
export type SignInBudgets = {
  perAddress: number
  perNetwork: number
  perAccount: number
  windowMs: number
  /** How long after a successful sign-in a device is exempt from the network and account budgets. */
  deviceMs: number
}

/** The budgets of issue 21: 10 a minute per address, 30 per /48, 10 per account; devices known for 30 days. */
export const defaultSignInBudgets: SignInBudgets = {
  perAddress: 10,
  perNetwork: 30,
  perAccount: 10,
  windowMs: 60_000,
  deviceMs: 30 * 86_400_000,
}

/** One sign-in attempt: who the client is, which account it signs in to, and the device cookie it holds, if any. */
export type SignInAttempt = {
  /** The client's address as the entry trusts it (never a header the client wrote), or 'unknown'. */
  address: string
  account: string
  /** The value of the device cookie the client sent. */
  device?: string | undefined
}

/** Which budget refused an attempt. */
export type SignInBudget = 'address' | 'network' | 'account'

/** Whether an attempt may go ahead; a refusal says for how long (for Retry-After) and which budget is spent. */
export type SignInVerdict =
  { allowed: true; knownDevice: boolean } | { allowed: false; retryAfterSeconds: number; budget: SignInBudget }

/** A new device cookie after a successful sign-in: its value and how long it lasts. */
export type SignInDevice = { token: string; maxAgeSeconds: number }

/** The limiter: check before comparing the password, then record the outcome. */
export type SignInLimiter = {
  /** Whether the attempt may be tried now; logs each refusal with its client. */
  check(attempt: SignInAttempt): Promise<SignInVerdict>
  /** Counts a wrong password against every budget the attempt is subject to. */
  recordFailure(attempt: SignInAttempt): Promise<void>
  /** Remembers the client's device for the account: set the returned token as its device cookie. */
  recordSuccess(attempt: SignInAttempt): Promise<SignInDevice>
}

/** What the limiter needs: where the counts live, the time, and where refusals are logged. */
export type SignInLimiterDeps = {
  counts: SignInCounts
  clock?: () => Date
  budgets?: Partial<SignInBudgets>
  log?: { info(message: string): void }
}

/** The address and network keys of a client: an IPv4 address alone; an IPv6 one by its /64 and its /48. */
export function signInClientKeys(address: string): { address: string; network?: string } {
  if (!ipaddr.isValid(address)) return { address: `address:${address}` }
  const ip = ipaddr.process(address)
  if (ip.kind() === 'ipv4') return { address: `address:${ip.toString()}` }
  const parts = (ip as ipaddr.IPv6).parts.map((part) => part.toString(16))
  return {
    address: `address:${parts.slice(0, 4).join(':')}::/64`,
    network: `network:${parts.slice(0, 3).join(':')}::/48`,
  }
}

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('')
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '')
}

/** Builds a sign-in limiter over shared counts (the leads page's, the studio's). */
export function createSignInLimiter(deps: SignInLimiterDeps): SignInLimiter {
  const clock = deps.clock ?? (() => new Date())
  const budgets = { ...defaultSignInBudgets, ...deps.budgets }
  const log = deps.log ?? { info: (m: string) => console.log(m) }

  async function knownDevice(attempt: SignInAttempt, now: Date): Promise<boolean> {
    // A cookie is 43 characters; anything much longer is not one of ours and is not hashed.
    if (!attempt.device || attempt.device.length > 200) return false
    return deps.counts.isSignInDevice(await sha256Hex(attempt.device), attempt.account, now)
  }

  /** The budgets an attempt is subject to, by key: a known device is held to its address's alone. */
  function budgetsOf(
    attempt: SignInAttempt,
    known: boolean,
  ): Array<{ key: string; budget: SignInBudget; limit: number }> {
    const client = signInClientKeys(attempt.address)
    const out: Array<{ key: string; budget: SignInBudget; limit: number }> = [
      { key: client.address, budget: 'address', limit: budgets.perAddress },
    ]
    if (known) return out
    if (client.network) out.push({ key: client.network, budget: 'network', limit: budgets.perNetwork })
    out.push({ key: `account:${attempt.account}`, budget: 'account', limit: budgets.perAccount })
    return out
  }

  return {
    async check(attempt) {
      const now = clock()
      const known = await knownDevice(attempt, now)
      const subject = budgetsOf(attempt, known)
      const counted = await deps.counts.countSignInFailures(
        subject.map((s) => s.key),
        new Date(now.getTime() - budgets.windowMs),
      )
      let refusal: { budget: SignInBudget; until: number } | undefined
      for (const { key, budget, limit } of subject) {
        const count = counted.find((c) => c.key === key)
        if (!count || count.failures < limit) continue
        const until = count.oldestAt.getTime() + budgets.windowMs
        if (!refusal || until > refusal.until) refusal = { budget, until }
      }
      if (!refusal) return { allowed: true, knownDevice: known }
      const retryAfterSeconds = Math.max(1, Math.ceil((refusal.until - now.getTime()) / 1000))
      log.info(
        `sign-in refused for account ${logValue(attempt.account)}: the ${refusal.budget} budget is spent (client ${logValue(attempt.address)}${known ? ', known device' : ''}); retry after ${retryAfterSeconds} s`,
      )
      return { allowed: false, retryAfterSeconds, budget: refusal.budget }
    },
    async recordFailure(attempt) {
      const now = clock()
      const subject = budgetsOf(attempt, await knownDevice(attempt, now))
      await deps.counts.addSignInFailure(
        subject.map((s) => s.key),
        now,
        new Date(now.getTime() - budgets.windowMs),
      )
    },
    async recordSuccess(attempt) {
      const now = clock()
      const token = randomToken()
      await deps.counts.saveSignInDevice(
        await sha256Hex(token),
        attempt.account,
        new Date(now.getTime() + budgets.deviceMs),
        now,
      )
      return { token, maxAgeSeconds: Math.floor(budgets.deviceMs / 1000) }
    },
  }
}
