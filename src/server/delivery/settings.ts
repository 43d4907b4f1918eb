import type { Variable } from '../settings/read-settings.ts'
import { standardWebhookDelaysMs } from './outbox.ts'

/**
 * The delivery room's settings: how mail is sent (SMTP, Resend, .eml files) and to whom, the outbox's retries,
 * the CRM webhook, the unsubscribe links, and the secret of the scheduled retry.
 * Each: its JSON Schema and default, its description (.env.example, docs/deploy.md) and the plain words of its
 * problem (`fix`, `expected`); src/server/env.ts reads them.
 */
export const deliverySettings = {
  SMTP_URL: {
    type: 'string',
    format: 'smtp-url',
    secret: true,
    description:
      'The SMTP server for notifications. Unset: each notification is written as an .eml file to DATA_DIR/outbox.',
    expected: 'a valid address',
    fix: 'use smtp://user:password@host:587 or smtps://user:password@host:465',
  },
  MAIL_FROM: {
    type: 'string',
    format: 'mail-from',
    description: 'The From address of notifications: an address, or a name and an address.',
    fix: 'write an address, or a name and an address, e.g. MAIL_FROM="Maple Hollow <no-reply@example.com>"',
  },
  NOTIFY_EMAIL: {
    type: 'string',
    format: 'email',
    description: 'Who receives each registration. Default: site.email in page.config.json.',
    expected: 'an e-mail address',
    fix: 'write who receives each registration, e.g. sales@example.com',
  },
  ALERT_EMAIL: {
    type: 'string',
    format: 'email',
    description:
      "Who is told (once) when a launch's config breaks or a message of the outbox fails for good. Unset: only the log and /healthz say so.",
    expected: 'an e-mail address',
    fix: 'write who looks after the server, e.g. ops@example.com',
  },
  NOTIFY_TIME_ZONE: {
    type: 'string',
    format: 'time-zone',
    default: 'America/Toronto',
    description:
      'The time zone of the "Received" time in notifications (an IANA name), and of the phases\' start times of a launch without launch.timeZone.',
    expected: 'a time zone',
    fix: 'use an IANA name such as America/Toronto',
  },
  MAIL_RETRY_MIN_SECONDS: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 7 * 86_400,
    default: 30,
    description: 'The first retry delay of a failed notification, in seconds; it doubles each time.',
    fix: 'use a number of seconds greater than 0',
  },
  MAIL_RETRY_MAX_SECONDS: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 7 * 86_400,
    default: 3600,
    description: 'The longest retry delay of a failed notification, in seconds.',
    fix: 'use a number of seconds greater than 0',
  },
  MAIL_MAX_ATTEMPTS: {
    type: 'integer',
    minimum: 1,
    maximum: 100,
    default: 10,
    description:
      'Attempts a notification or reply gets before it is kept as failed (npm run outbox:retry sends it again). A permanent refusal (SMTP 5xx) ends it at once.',
    fix: 'use a whole number from 1 to 100',
  },
  MAIL_RATE_PER_SECOND: {
    type: 'number',
    exclusiveMinimum: 0,
    maximum: 100_000,
    description:
      "The mail provider's send-rate cap, messages a second: the outbox never hands the SMTP server (or Resend) more than this in any second. Per delivery process: with several servers on one DATABASE_URL, give each the cap divided by their number. Resend's default is 2. Unset: no cap (a 421, 451 or 429 answer still slows it down).",
    expected: 'a number of messages a second',
    fix: "use your provider's limit in messages a second, greater than 0, e.g. MAIL_RATE_PER_SECOND=50, or leave it unset for no cap",
  },
  MAIL_CONCURRENCY: {
    type: 'integer',
    minimum: 1,
    maximum: 64,
    default: 8,
    description:
      'Messages the outbox sends at once; the SMTP pool keeps as many connections open. Lower it if your provider limits connections.',
    expected: 'a whole number from 1 to 64',
    fix: 'use a whole number from 1 to 64, e.g. MAIL_CONCURRENCY=8 (fewer if your SMTP provider allows fewer connections)',
  },
  MAIL_WORKERS: {
    type: 'integer',
    minimum: 1,
    maximum: 16,
    description:
      "Outbox workers of the Node server's delivery process, each on a thread (a core) of its own, sharing MAIL_CONCURRENCY and MAIL_RATE_PER_SECOND between them: composing and sending a burst's mail takes more than one core. Unset: 2, or 1 on a machine with one core.",
    expected: 'a whole number from 1 to 16',
    fix: 'use a whole number from 1 to 16, e.g. MAIL_WORKERS=2 (about one for each core the delivery may use)',
  },
  WEBHOOK_URL: {
    type: 'string',
    format: 'http-url',
    secret: true,
    description:
      "Where every new lead is POSTed as signed JSON (your CRM's webhook, docs/webhook.md). Unset: no webhook.",
    expected: 'a URL',
    fix: "write the https:// address of your CRM's webhook",
  },
  WEBHOOK_SECRET: {
    type: 'string',
    minLength: 16,
    secret: true,
    description: 'The secret each webhook call is signed with (HMAC-SHA256); the CRM checks the signature with it.',
    expected: 'a usable secret',
    fix: 'use at least 16 random characters, e.g. from `openssl rand -hex 32`, and give the same to the CRM',
  },
  WEBHOOK_RETRY_SECONDS: {
    type: 'array',
    items: { type: 'number', exclusiveMinimum: 0, maximum: 7 * 86_400 },
    minItems: 1,
    maxItems: 30,
    default: standardWebhookDelaysMs.map((ms) => ms / 1000),
    description:
      "Seconds between webhook attempts, comma-separated; one more attempt than delays. Default Standard Webhooks' schedule (about 28 hours).",
    fix: 'give seconds greater than 0, comma-separated, e.g. 5,300,1800,7200,18000,36000,36000',
  },
  UNSUBSCRIBE_SECRET: {
    type: 'string',
    minLength: 16,
    secret: true,
    description:
      'Signs the unsubscribe links in replies. Node server: default a key made once in DATA_DIR/unsubscribe.key. Required on Supabase when the config has a reply.',
    expected: 'a usable secret',
    fix: 'use at least 16 random characters, e.g. from `openssl rand -hex 32`',
  },
  PUBLIC_FUNCTION_URL: {
    type: 'string',
    format: 'http-url',
    description:
      "The function's public address, for the unsubscribe links in replies. Default: the config's seo.canonicalUrl origin + /functions/v1/send-contact-email (Node), SUPABASE_URL + /functions/v1/send-contact-email (Supabase).",
    expected: 'a URL',
    fix: 'write e.g. https://www.example.com/functions/v1/send-contact-email',
  },
  SUPABASE_URL: {
    type: 'string',
    format: 'http-url',
    description:
      "The project's address; Supabase sets it for deployed functions (the unsubscribe links are made from it).",
    expected: 'a URL',
    fix: 'write https://<project-ref>.supabase.co',
  },
  RESEND_API_KEY: {
    type: 'string',
    secret: true,
    description: 'The Resend API key the Edge Function sends notifications with (Edge Functions cannot use SMTP).',
    fix: 'notifications are sent through Resend: `supabase secrets set RESEND_API_KEY=re_…`',
  },
  RESEND_API_URL: {
    type: 'string',
    format: 'http-url',
    default: 'https://api.resend.com',
    description: "Resend's API address; change it only for testing.",
    expected: 'a URL',
    fix: 'use https://api.resend.com',
  },
  OUTBOX_SECRET: {
    type: 'string',
    minLength: 16,
    // A Bearer token (RFC 6750 token68): anything else could never match the Authorization header.
    pattern: '^[A-Za-z0-9._~+/-]+=*$',
    secret: true,
    description:
      'The secret the scheduled retry of pending mail sends as a Bearer token to …/send-contact-email/deliver-pending.',
    expected: 'a usable secret',
    fix: 'use at least 16 random letters and digits, e.g. from `openssl rand -hex 24`',
  },
} as const satisfies Record<string, Variable>

/** A webhook is signed, or not sent: its address and its secret go together. */
export const webhookDependencies = { WEBHOOK_URL: ['WEBHOOK_SECRET'], WEBHOOK_SECRET: ['WEBHOOK_URL'] } as const
