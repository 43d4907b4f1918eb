import type { Context, Hono } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { createTwoFilesPatch } from 'diff'
import { singleAddress } from '../../server/delivery/mailer.ts'
import type {
  AuditEntry,
  CheckResponse,
  InviteResponse,
  LaunchDetail,
  MeResponse,
  Person,
  PublishResponse,
  Role,
  SaveDraftResponse,
  StudioError,
  StudioProblem,
  VersionDetail,
  VersionSummary,
} from '../protocol.ts'
import type { ServedLaunch } from '../../server/site/launch-publisher.ts'
import { checkTotp, totpOf } from './auth.ts'
import type { StudioContext, StudioEnv } from './context.ts'
import { fileText, mayEdit, problemsOf, servedLaunch, studioProblems, summaryOf } from './launches.ts'
import { createOneTimeLink, linkMail } from './links.ts'
import { AccountExistsError, normalizeEmail, type Account, type StoredVersion } from './store.ts'
import * as OTPAuth from 'otpauth'

/**
 * The studio's JSON API under /studio/api (src/studio/protocol.ts): the signed-in person, launches, drafts, checks,
 * publishing, versions and restoring, people and the audit log. The session and the Origin are checked before any
 * route here (studio.ts); each route checks the role and the launches the account may touch.
 */

const maxTextBytes = 5 * 1024 * 1024
const roles: readonly Role[] = ['owner', 'editor', 'sales']

/** A refusal in the protocol's shape. */
export function refuse(
  c: Context,
  status: 400 | 401 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 500,
  error: string,
  problems?: StudioProblem[],
) {
  return c.json<StudioError>(problems ? { error, problems } : { error }, status)
}

/** The request's JSON object body; undefined when it is not one. */
export async function jsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  try {
    const body: unknown = await c.req.json()
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function versionSummary(version: StoredVersion): VersionSummary {
  return {
    version: version.number,
    at: version.at,
    by: version.by,
    ...(version.message ? { message: version.message } : {}),
    fromDisk: version.fromDisk,
    ...(version.restoredFrom !== undefined ? { restoredFrom: version.restoredFrom } : {}),
  }
}

function personOf(account: Account): Person {
  return {
    email: account.email,
    role: account.role,
    ...(account.launches ? { launches: account.launches } : {}),
    invitedAt: account.invitedAt,
    active: account.passwordHash !== undefined,
  }
}

/** Adds the API's routes to the studio app (mounted under /studio). */
export function addApi(app: Hono<StudioEnv>, ctx: StudioContext): void {
  const textLimit = bodyLimit({
    maxSize: maxTextBytes,
    onError: (c) => refuse(c, 413, 'The text is larger than 5 MB.'),
  })
  const smallLimit = bodyLimit({ maxSize: 16 * 1024, onError: (c) => refuse(c, 413, 'That request is too large.') })

  /** The launch of the route's :slug if the account may edit it; else the refusal to send. */
  function launchFor(c: Context<StudioEnv>): ServedLaunch | Response {
    const account = c.get('account')
    const slug = c.req.param('slug') ?? ''
    if (account.role === 'sales')
      return refuse(c, 403, 'A sales account has the leads page only: it cannot see or change launches.')
    const launch = servedLaunch(ctx, slug)
    if (!launch) return refuse(c, 404, `There is no launch "${slug}".`)
    if (!mayEdit(account, slug))
      return refuse(c, 403, `Your account is not given launch "${slug}". An owner can add it.`)
    return launch
  }
  const ownerOnly = (c: Context<StudioEnv>) =>
    c.get('account').role === 'owner' ? undefined : refuse(c, 403, 'Only an owner of the studio can do this.')

  async function publishText(
    c: Context<StudioEnv>,
    launch: ServedLaunch,
    text: string,
    message: string | undefined,
    restoredFrom?: number,
  ) {
    const account = c.get('account')
    const problems = problemsOf(launch, text)
    if (problems.length) {
      return refuse(
        c,
        422,
        `This text has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}: nothing was published. ${problems[0]!.message}`,
        studioProblems(problems),
      )
    }
    const result = await ctx.publisher.publish(launch.slug, text)
    if (!result.ok) {
      return refuse(
        c,
        422,
        `The launch could not be published: nothing was changed. ${result.problems[0]?.message ?? ''}`.trim(),
        studioProblems(result.problems),
      )
    }
    const version = await ctx.store.addVersion({
      launch: launch.slug,
      text,
      by: account.email,
      at: ctx.clock().toISOString(),
      message,
      fromDisk: false,
      restoredFrom,
    })
    const draft = await ctx.store.getDraft(launch.slug)
    if (draft?.text === text) await ctx.store.deleteDraft(launch.slug)
    await ctx.audit(
      account.email,
      restoredFrom === undefined ? 'publish' : 'restore',
      launch.slug,
      `version ${version}${restoredFrom === undefined ? '' : ` (from version ${restoredFrom})`}${message ? `: ${message}` : ''}${result.warning ? " (the static host's command failed)" : ''}`,
    )
    return c.json<PublishResponse>({ version, ms: result.ms, ...(result.warning ? { warning: result.warning } : {}) })
  }

  app.get('/api/me', async (c) => {
    const account = c.get('account')
    return c.json<MeResponse>({
      email: account.email,
      role: account.role,
      ...(account.launches ? { launches: account.launches } : {}),
      totp: account.totpSecret !== undefined,
      ...(ctx.local ? { local: true } : {}),
    })
  })

  app.get('/api/launches', async (c) => {
    const account = c.get('account')
    if (account.role === 'sales')
      return refuse(c, 403, 'A sales account has the leads page only: it cannot see or change launches.')
    const launches = ctx.publisher.list().filter((launch) => mayEdit(account, launch.slug))
    return c.json(await Promise.all(launches.map((launch) => summaryOf(ctx, launch))))
  })

  app.get('/api/launches/:slug', async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    const [summary, draft, live] = await Promise.all([
      summaryOf(ctx, launch),
      ctx.store.getDraft(launch.slug),
      ctx.store.latestVersion(launch.slug),
    ])
    const liveText = live?.text ?? fileText(launch) ?? ''
    return c.json<LaunchDetail>({
      ...summary,
      liveText,
      ...(draft ? { draftText: draft.text } : {}),
      problems: studioProblems(problemsOf(launch, draft?.text ?? liveText)),
    })
  })

  app.put('/api/launches/:slug/draft', textLimit, async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    const body = await jsonBody(c)
    if (typeof body?.text !== 'string') return refuse(c, 400, 'Send the draft as {"text": "…"}.')
    const now = ctx.clock()
    await ctx.store.saveDraft(launch.slug, body.text, c.get('account').email, now)
    await ctx.audit(c.get('account').email, 'save draft', launch.slug)
    return c.json<SaveDraftResponse>({
      savedAt: now.toISOString(),
      problems: studioProblems(problemsOf(launch, body.text)),
    })
  })

  app.delete('/api/launches/:slug/draft', async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    await ctx.store.deleteDraft(launch.slug)
    await ctx.audit(c.get('account').email, 'discard draft', launch.slug)
    return c.json({ discarded: true })
  })

  app.post('/api/launches/:slug/check', textLimit, async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    const body = await jsonBody(c)
    if (typeof body?.text !== 'string') return refuse(c, 400, 'Send the text to check as {"text": "…"}.')
    return c.json<CheckResponse>({ problems: studioProblems(problemsOf(launch, body.text)) })
  })

  app.post('/api/launches/:slug/publish', textLimit, async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    const body = (await jsonBody(c)) ?? {}
    const message =
      typeof body.message === 'string' && body.message.trim() ? body.message.trim().slice(0, 500) : undefined
    const text = typeof body.text === 'string' ? body.text : (await ctx.store.getDraft(launch.slug))?.text
    if (text === undefined) return refuse(c, 400, 'There is no draft to publish: save a draft first.')
    return publishText(c, launch, text, message)
  })

  app.get('/api/launches/:slug/versions', async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    return c.json((await ctx.store.listVersions(launch.slug)).map(versionSummary))
  })

  const versionParam = (c: Context) => {
    const number = Number(c.req.param('version'))
    return Number.isSafeInteger(number) && number > 0 ? number : undefined
  }

  app.get('/api/launches/:slug/versions/:version', async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    const number = versionParam(c)
    const version = number && (await ctx.store.getVersion(launch.slug, number))
    if (!version) return refuse(c, 404, `Launch "${launch.slug}" has no version ${c.req.param('version')}.`)
    const before = await ctx.store.getVersion(launch.slug, version.number - 1)
    const diff = createTwoFilesPatch(
      before ? `version ${before.number}` : 'nothing',
      `version ${version.number}`,
      before?.text ?? '',
      version.text,
      undefined,
      undefined,
      { context: 3 },
    )
    return c.json<VersionDetail>({ ...versionSummary(version), text: version.text, diff })
  })

  app.post('/api/launches/:slug/versions/:version/restore', smallLimit, async (c) => {
    const launch = launchFor(c)
    if (launch instanceof Response) return launch
    const number = versionParam(c)
    const version = number && (await ctx.store.getVersion(launch.slug, number))
    if (!version) return refuse(c, 404, `Launch "${launch.slug}" has no version ${c.req.param('version')}.`)
    const body = (await jsonBody(c)) ?? {}
    const message =
      typeof body.message === 'string' && body.message.trim()
        ? body.message.trim().slice(0, 500)
        : `Restored version ${version.number}`
    return publishText(c, launch, version.text, message, version.number)
  })

  app.get('/api/people', async (c) => {
    const refused = ownerOnly(c)
    if (refused) return refused
    return c.json((await ctx.store.listAccounts()).map(personOf))
  })

  /** The role and launches of a request body, or the sentence saying what is wrong. */
  function accessOf(body: Record<string, unknown>): { role: Role; launches?: string[] } | string {
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

  async function ownersLeft(except: number): Promise<number> {
    return (await ctx.store.listAccounts()).filter((account) => account.role === 'owner' && account.id !== except)
      .length
  }

  app.post('/api/people', smallLimit, async (c) => {
    const refused = ownerOnly(c)
    if (refused) return refused
    const body = (await jsonBody(c)) ?? {}
    const email = singleAddress(typeof body.email === 'string' ? normalizeEmail(body.email) : undefined)
    if (!email) return refuse(c, 400, 'Write one e-mail address, such as jane@example.com.')
    const access = accessOf(body)
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
    const emailed = await mail(linkMail(email, 'invite', link))
    await ctx.audit(
      c.get('account').email,
      'invite',
      undefined,
      `${email} as ${access.role}${access.launches ? ` (${access.launches.join(', ')})` : ''}`,
    )
    return c.json<InviteResponse>({ link, expiresAt, emailed })
  })

  async function mail(message: { to: string; subject: string; text: string }): Promise<boolean> {
    if (!ctx.sendMail) return false
    try {
      await ctx.sendMail(message)
      return true
    } catch (error) {
      ctx.log.error('studio: a link could not be e-mailed', error)
      return false
    }
  }

  async function personFor(c: Context<StudioEnv>): Promise<Account | Response> {
    const refused = ownerOnly(c)
    if (refused) return refused
    const account = await ctx.store.findAccountByEmail(decodeURIComponent(c.req.param('email') ?? ''))
    return account ?? refuse(c, 404, 'There is no such person in the studio.')
  }

  app.put('/api/people/:email', smallLimit, async (c) => {
    const person = await personFor(c)
    if (person instanceof Response) return person
    const access = accessOf((await jsonBody(c)) ?? {})
    if (typeof access === 'string') return refuse(c, 400, access)
    if (person.role === 'owner' && access.role !== 'owner' && (await ownersLeft(person.id)) === 0) {
      return refuse(c, 409, 'The studio needs at least one owner: make someone else an owner first.')
    }
    await ctx.store.changeAccess(person.id, access, ctx.clock())
    await ctx.audit(
      c.get('account').email,
      'change role',
      undefined,
      `${person.email} to ${access.role}${access.launches ? ` (${access.launches.join(', ')})` : ''}`,
    )
    return c.json(personOf({ ...person, ...access }))
  })

  app.delete('/api/people/:email', async (c) => {
    const person = await personFor(c)
    if (person instanceof Response) return person
    if (person.role === 'owner' && (await ownersLeft(person.id)) === 0)
      return refuse(c, 409, 'The studio needs at least one owner: make someone else an owner first.')
    await ctx.store.removeAccount(person.id)
    await ctx.audit(c.get('account').email, 'remove', undefined, person.email)
    return c.json({ removed: person.email })
  })

  app.post('/api/people/:email/reset-link', async (c) => {
    const person = await personFor(c)
    if (person instanceof Response) return person
    const purpose = person.passwordHash ? 'reset' : 'invite'
    const { link, expiresAt } = await createOneTimeLink(ctx.store, person.id, purpose, ctx.clock(), ctx.linkBase(c))
    const emailed = await mail(linkMail(person.email, purpose, link))
    await ctx.audit(c.get('account').email, 'reset link', undefined, person.email)
    return c.json<InviteResponse>({ link, expiresAt, emailed })
  })

  app.get('/api/audit', async (c) => {
    const refused = ownerOnly(c)
    if (refused) return refused
    const limit = Math.min(1000, Math.max(1, Number(c.req.query('limit')) || 200))
    return c.json<AuditEntry[]>(await ctx.store.listAudit(limit))
  })

  // Two-factor sign-in (owners): a secret to scan, then turned on by a code from it.
  app.post('/api/me/totp/setup', async (c) => {
    const account = c.get('account')
    if (account.role !== 'owner') return refuse(c, 403, 'Two-factor sign-in is for owners.')
    const secret = new OTPAuth.Secret({ size: 20 }).base32
    return c.json({ secret, uri: totpOf(secret, account.email).toString() })
  })
  app.post('/api/me/totp', smallLimit, async (c) => {
    const account = c.get('account')
    if (account.role !== 'owner') return refuse(c, 403, 'Two-factor sign-in is for owners.')
    const body = (await jsonBody(c)) ?? {}
    const secret = typeof body.secret === 'string' && /^[A-Z2-7]{32}$/.test(body.secret) ? body.secret : undefined
    if (!secret)
      return refuse(c, 400, 'Send the secret from the setup step and a code: {"secret": "…", "code": "123456"}.')
    if (!checkTotp(secret, typeof body.code === 'string' ? body.code.trim() : '', ctx.clock()))
      return refuse(c, 400, 'That code is not right (it changes every 30 seconds). Please try again.')
    await ctx.store.setTotpSecret(account.id, secret, ctx.clock(), c.get('sessionHash'))
    await ctx.audit(account.email, 'two-factor on')
    return c.json({ totp: true })
  })
  app.delete('/api/me/totp', smallLimit, async (c) => {
    const account = c.get('account')
    const body = (await jsonBody(c)) ?? {}
    if (
      !account.totpSecret ||
      !checkTotp(account.totpSecret, typeof body.code === 'string' ? body.code.trim() : '', ctx.clock())
    ) {
      return refuse(c, 400, 'Send a current code from your authenticator app to turn two-factor sign-in off.')
    }
    await ctx.store.setTotpSecret(account.id, undefined, ctx.clock(), c.get('sessionHash'))
    await ctx.audit(account.email, 'two-factor off')
    return c.json({ totp: false })
  })
}
