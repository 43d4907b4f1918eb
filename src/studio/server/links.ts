import type { LinkPurpose, StudioStore } from './store.ts'
import { newToken, tokenHash } from './tokens.ts'

/** How long a one-time link works: 24 hours. */
export const linkLifetimeMs = 24 * 60 * 60 * 1000

/**
 * Makes a one-time link for an account (an invitation or a password reset) under `base` (e.g. https://example.com):
 * only the token's hash is stored; the link works once, for 24 hours.
 */
export async function createOneTimeLink(
  store: StudioStore,
  accountId: number,
  purpose: LinkPurpose,
  now: Date,
  base: string,
): Promise<{ link: string; expiresAt: string }> {
  const token = newToken()
  const expiresAt = new Date(now.getTime() + linkLifetimeMs)
  await store.createLink(tokenHash(token), accountId, purpose, now, expiresAt)
  return { link: `${base.replace(/\/+$/, '')}/studio/invite/${token}`, expiresAt: expiresAt.toISOString() }
}

/** The message that carries a link: who it is for and what it does; the link is the only URL in it. */
export function linkMail(
  to: string,
  purpose: LinkPurpose,
  link: string,
): { to: string; subject: string; text: string } {
  return purpose === 'invite'
    ? {
        to,
        subject: 'Your invitation to the studio',
        text: `You have been given access to the studio, where the launch pages are edited.\n\nChoose your password here (the link works once, for 24 hours):\n${link}\n`,
      }
    : {
        to,
        subject: 'A new password for the studio',
        text: `Someone asked for a new studio password for this address. If it was you, choose one here (the link works once, for 24 hours):\n${link}\n\nIf it was not you, ignore this message: your password stays as it is.\n`,
      }
}
