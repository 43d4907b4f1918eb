/**
 * The realtors' path (issue 24): who is a realtor (the form's isRealtor answered yes), where their registration is
 * notified (the launch's co-op desk) and the reply they get (page.config.json `reply.realtor`: the broker package and
 * the co-operation terms, over the reply's own sender, signature, brokerage contact and unsubscribe).
 */
import type { ReplyConfig } from '../../../schema/reply.ts'

/** Whether a registration is a realtor's: the form's isRealtor is yes (as the leads page's Realtor filter reads it). */
export function isRealtorLead(fields: Record<string, unknown>): boolean {
  const answer = fields.isRealtor
  return answer === true || (typeof answer === 'string' && ['yes', 'true', '1'].includes(answer.trim().toLowerCase()))
}

/**
 * The reply a lead gets: for a realtor, the config's `reply.realtor` words (its paragraphs, then the co-operation
 * terms; its documents, else the reply's) over the reply; for anyone else, or without `reply.realtor`, the reply.
 */
export function replyForLead(config: ReplyConfig, fields: Record<string, unknown>): ReplyConfig {
  const words = config.realtor
  if (!words || !isRealtorLead(fields)) return config
  return {
    ...config,
    subject: words.subject,
    greeting: words.greeting ?? config.greeting,
    paragraphs: [...words.paragraphs, words.cooperation],
    ...(words.documents ? { documents: words.documents } : {}),
    ...(words.documentsHeading ? { documentsHeading: words.documentsHeading } : {}),
  }
}

/**
 * Who is told of a lead: a realtor's registration goes to the co-op desk (launch.realtorEmail) when the launch has one.
 */
export function notificationRecipient(
  fields: Record<string, unknown>,
  launch: { notifyEmail: string; realtorEmail?: string | undefined },
): string {
  return isRealtorLead(fields) && launch.realtorEmail ? launch.realtorEmail : launch.notifyEmail
}
