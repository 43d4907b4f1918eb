import type { OutboxBacklog } from '../../store/outbox/outbox.ts'

/**
 * How far behind the mail is, in plain words: for the leads page (a salesperson) and the owners' alert. Counts and an
 * age only, never a person.
 */

/** How long the oldest message still waiting has waited, in whole seconds; 0 when none waits. */
export function waitedSeconds(backlog: OutboxBacklog, now = new Date()): number {
  if (backlog.oldestPendingAt === null) return 0
  return Math.max(0, Math.floor((now.getTime() - backlog.oldestPendingAt.getTime()) / 1000))
}

/** A wait in words: "less than a minute", "3 minutes", "2 hours", "4 days". */
export function waitInWords(seconds: number): string {
  const plural = (n: number, unit: string) => `${n.toLocaleString('en-CA')} ${unit}${n === 1 ? '' : 's'}`
  if (seconds < 60) return 'less than a minute'
  if (seconds < 2 * 3600) return plural(Math.floor(seconds / 60), 'minute')
  if (seconds < 2 * 86_400) return plural(Math.floor(seconds / 3600), 'hour')
  return plural(Math.floor(seconds / 86_400), 'day')
}

/** "No message waits to be sent." or "1,240 messages wait to be sent; the oldest has waited 3 minutes." */
export function backlogInWords(pending: number, oldestSeconds: number): string {
  if (pending === 0) return 'No message waits to be sent.'
  const count = `${pending.toLocaleString('en-CA')} ${pending === 1 ? 'message waits' : 'messages wait'}`
  return `${count} to be sent; the oldest has waited ${waitInWords(oldestSeconds)}.`
}
