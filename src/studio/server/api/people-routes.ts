import type { Context, Hono } from 'hono'
import { singleAddress } from '../../../server/delivery/mailer.ts'
import type { InviteResponse, Person, Role } from '../../protocol.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { createOneTimeLink, linkMail } from '../links.ts'
import { AccountExistsError, normalizeEmail, type Account } from '../store.ts'
import { ownerOnly } from './access.ts'
import { jsonBody, refuse, smallLimit } from './respond.ts'

const roles: readonly Role[] = ['owner', 'editor', 'sales']
const lastOwner = 'The studio needs at least one owner: make someone else an owner first.'

type Access = { role: Role; launches?: string[] }

function personOf(account: Account): Person {
  return {
    email: account.email,
    role: account.role,
    ...(account.launches ? { launches: account.launches } : {}),
    invitedAt: account.invitedAt,
    active: account.passwordHash !== undefined,
  }
}

/** The role and launches of a request body, or the sentence saying what is wrong. */
function accessOf(ctx: StudioContext, body: Record<string, unknown>): Access | string {
  if (!roles.includes(body.role as Role)) return 'Choose a role: owner, editor or sales.'
  const role = body.role as Role
  if (body.launches === undefined || body.launches === null) return { role }
  const known = new Set(ctx.publisher.list().map((launch) => launch.slug))
  if (!Array.isArray(body.launches) || !body.launches.every((slug) => typeof slug === 'string' && known.has(slug))) {
    return `Launches must be a list of launches there are: ${[...known].join(', ')}.`
  }
  if (role === 'owner') return 'An owner has every launch: leave the launches out.'
  return { role, launches: [...new Set(body.launches as string[])] }
}

const accessWords = (access: Access) => `${access.role}${access.launches ? ` (${access.launches.join(', ')})` : ''}`

async function ownersLeft(ctx: StudioContext, except: number): Promise<number> {
  const accounts = await ctx.store.listAccounts()
  return accounts.filter((account) => account.role === 'owner' && account.id !== except).length
}

/** Mails a link when mail is set up; whether it went (the link is shown to copy either way). */
async function mail(ctx: StudioContext, message: { to: string; subject: string; text: string }): Promise<boolean> {
  if (!ctx.sendMail) return false
  try {
    await ctx.sendMail(message)
    return true
  } catch (error) {
    ctx.log.error('studio: a link could not be e-mailed', error)
    return false
  }
}

/** The person of the route's :email, for an owner; else the refusal to send. */
async function personFor(ctx: StudioContext, c: Context<StudioEnv>): Promise<Account | Response> {
  const refused = ownerOnly(c)
  if (refused) return refused
  const account = await ctx.store.findAccountByEmail(decodeURIComponent(c.req.param('email') ?? ''))
  return account ?? refuse(c, 404, 'There is no such person in the studio.')
}

/** POST /api/people: invites a person (owners), the link mailed and shown. */
async function invite(ctx: StudioContext, c: Context<StudioEnv>) {
  const body = (await jsonBody(c)) ?? {}
  const email = singleAddress(typeof body.email === 'string' ? normalizeEmail(body.email) : undefined)
  if (!email) return refuse(c, 400, 'Write one e-mail address, such as jane@example.com.')
  const access = accessOf(ctx, body)
  if (typeof access === 'string') return refuse(c, 400, access)
  const now = ctx.clock()
  let account: Account
  try {
    account = await ctx.store.createAccount({ email, ...access }, now)
  } catch (error) {
    if (error instanceof AccountExistsError)
      return refuse(c, 409, `${email} already has an account. Make a new sign-in link for them instead.`)
    throw error
  }
  const { link, expiresAt } = await createOneTimeLink(ctx.store, account.id, 'invite', now, ctx.linkBase(c))
  const emailed = await mail(ctx, linkMail(email, 'invite', link))
  await ctx.audit(c.get('account').email, 'invite', undefined, `${email} as ${accessWords(access)}`)
  return c.json<InviteResponse>({ link, expiresAt, emailed })
}

/** The people of the studio (owners): list, invite, change a role, remove, a new sign-in link. */
export function addPeopleRoutes(app: Hono<StudioEnv>, ctx: StudioContext): void {
  app.get('/api/people', async (c) => ownerOnly(c) ?? c.json((await ctx.store.listAccounts()).map(personOf)))

  app.post('/api/people', smallLimit, (c) => ownerOnly(c) ?? invite(ctx, c))

  app.put('/api/people/:email', smallLimit, async (c) => {
    const person = await personFor(ctx, c)
    if (person instanceof Response) return person
    const access = accessOf(ctx, (await jsonBody(c)) ?? {})
    if (typeof access === 'string') return refuse(c, 400, access)
    if (person.role === 'owner' && access.role !== 'owner' && (await ownersLeft(ctx, person.id)) === 0)
      return refuse(c, 409, lastOwner)
    await ctx.store.changeAccess(person.id, access, ctx.clock())
    await ctx.audit(c.get('account').email, 'change role', undefined, `${person.email} to ${accessWords(access)}`)
    return c.json(personOf({ ...person, ...access }))
  })

  app.delete('/api/people/:email', async (c) => {
    const person = await personFor(ctx, c)
    if (person instanceof Response) return person
    if (person.role === 'owner' && (await ownersLeft(ctx, person.id)) === 0) return refuse(c, 409, lastOwner)
    await ctx.store.removeAccount(person.id)
    await ctx.audit(c.get('account').email, 'remove', undefined, person.email)
    return c.json({ removed: person.email })
  })

  app.post('/api/people/:email/reset-link', async (c) => {
    const person = await personFor(ctx, c)
    if (person instanceof Response) return person
    const purpose = person.passwordHash ? 'reset' : 'invite'
    const { link, expiresAt } = await createOneTimeLink(ctx.store, person.id, purpose, ctx.clock(), ctx.linkBase(c))
    const emailed = await mail(ctx, linkMail(person.email, purpose, link))
    await ctx.audit(c.get('account').email, 'reset link', undefined, person.email)
    return c.json<InviteResponse>({ link, expiresAt, emailed })
  })
}
