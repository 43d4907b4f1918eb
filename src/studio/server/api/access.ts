import type { Context } from 'hono'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import type { StudioContext, StudioEnv } from '../context.ts'
import { mayEdit, servedLaunch } from '../launches.ts'
import { refuse } from './respond.ts'

/** The sentence a sales account gets from every launch route. */
export const salesHasLeadsOnly = 'A sales account has the leads page only: it cannot see or change launches.'

/** The launch of the route's :slug if the account may edit it; else the refusal to send. */
export function launchFor(ctx: StudioContext, c: Context<StudioEnv>): ServedLaunch | Response {
  const account = c.get('account')
  const slug = c.req.param('slug') ?? ''
  if (account.role === 'sales') return refuse(c, 403, salesHasLeadsOnly)
  const launch = servedLaunch(ctx, slug)
  if (!launch) return refuse(c, 404, `There is no launch "${slug}".`)
  if (!mayEdit(account, slug)) return refuse(c, 403, `Your account is not given launch "${slug}". An owner can add it.`)
  return launch
}

/** The refusal for anyone but an owner; undefined for an owner. */
export function ownerOnly(c: Context<StudioEnv>): Response | undefined {
  return c.get('account').role === 'owner' ? undefined : refuse(c, 403, 'Only an owner of the studio can do this.')
}
