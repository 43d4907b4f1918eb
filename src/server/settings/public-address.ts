import type { Variable } from './read-settings.ts'

/**
 * Where people reach the server, as the operator declares it: the one source of every address the server mails
 * (studio invitations and resets, a lead's link to its assignee) and of the hosts the studio and the leads page answer
 * on. Never taken from a request's Host header, which anyone can write. src/server/env.ts reads them.
 */
export const publicAddressSettings = {
  PUBLIC_URL: {
    type: 'string',
    format: 'http-url',
    description:
      "The address people open the site, the studio and the leads page at, e.g. https://www.example.com: every link the server mails (studio invitations and password resets, a lead's link on the leads page) starts with it, never with what a request's Host header says. Required when mail leaves this machine (SMTP_URL). Unset without SMTP_URL: links start with http://localhost:PORT.",
    expected: 'an http(s) address',
    fix: "mail that leaves this machine carries links (studio invitations and password resets, a lead's link), which must point at the address people open the site at and never at what a request names: write it, e.g. PUBLIC_URL=https://www.example.com",
  },
  STUDIO_HOST: {
    type: 'string',
    pattern: '^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$',
    description:
      "Recommended on a public server: the host name the studio (/studio) and the leads page (/leads) answer on, alone, e.g. studio.example.com: their cookies then belong to that host, apart from the launches' pages and whatever scripts a launch's config lets in. Its links start with it (PUBLIC_URL's scheme, https by default). Unset: they answer on PUBLIC_URL's host, a launch's own hosts and localhost (one machine).",
    expected: 'a host name',
    fix: 'write a host name (and port, if not the usual one) no launch uses, e.g. STUDIO_HOST=studio.example.com',
  },
} as const satisfies Record<string, Variable>
