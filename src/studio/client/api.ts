import type {
  AllocationBoard,
  AuditEntry,
  BoardLot,
  BoardProposal,
  ConfirmResponse,
  InventoryImportResponse,
  CheckResponse,
  DraftConflict,
  InviteRequest,
  InviteResponse,
  LaunchDetail,
  LaunchSummary,
  MeResponse,
  NewLaunchRequest,
  NewLaunchResponse,
  Person,
  PresenceResponse,
  PreviewLinkResponse,
  PreviewLinkSummary,
  PublishRequest,
  PublishResponse,
  RestoreResponse,
  Role,
  SaveDraftResponse,
  StudioError,
  StudioProblem,
  VersionDetail,
  VersionSummary,
  PreviewResponse,
} from '../protocol.ts'
import { localTokenHeader, localTokenMeta } from '../protocol.ts'

// The one module of the studio's page that talks to its server (src/studio/protocol.ts): same origin, the session
// cookie, JSON in and out. A refusal becomes a StudioRequestError carrying the server's sentence and problems.

/**
 * A request the server refused or could not answer: its words for the person, a config's problems (422), a form's
 * fields at fault.
 */
export class StudioRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly problems: StudioProblem[] = [],
    readonly fields: Record<string, string> = {},
    readonly conflict?: DraftConflict,
  ) {
    super(message)
    this.name = 'StudioRequestError'
  }
}

const apiRoot = '/studio/api'

// `npm run edit` writes its token into the page (no one signs in there); every call sends it back.
const localToken =
  typeof document === 'undefined'
    ? undefined
    : document.querySelector<HTMLMetaElement>(`meta[name="${localTokenMeta}"]`)?.content

/** Calls the studio's server; throws StudioRequestError with its words when it refuses. */
export async function call<T>(path: string, init: RequestInit = {}): Promise<T> {
  let response: Response
  try {
    const headers = new Headers(init.headers)
    if (localToken) headers.set(localTokenHeader, localToken)
    response = await fetch(`${apiRoot}${path}`, { credentials: 'same-origin', ...init, headers })
  } catch {
    throw new StudioRequestError('The studio cannot be reached: check the connection and try again.', 0)
  }
  const text = await response.text()
  let body: unknown
  try {
    body = text ? JSON.parse(text) : {}
  } catch {
    body = undefined
  }
  if (!response.ok) {
    const error = body as StudioError | undefined
    const fallback =
      response.status === 401
        ? 'You are signed out: sign in again.'
        : `The studio answered ${response.status}; try again.`
    throw new StudioRequestError(
      error?.error ?? fallback,
      response.status,
      error?.problems ?? [],
      error?.fields ?? {},
      error?.conflict,
    )
  }
  if (body === undefined)
    throw new StudioRequestError('The studio sent an answer that is not JSON; try again.', response.status)
  return body as T
}

const send = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})
const launchPath = (slug: string) => `/launches/${encodeURIComponent(slug)}`

/** The studio's calls, one per endpoint of src/studio/protocol.ts. */
export const studioApi = {
  me: () => call<MeResponse>('/me'),
  launches: () => call<LaunchSummary[]>('/launches'),
  launch: (slug: string) => call<LaunchDetail>(launchPath(slug)),
  saveDraft: (slug: string, text: string, baseVersion?: number) =>
    call<SaveDraftResponse>(`${launchPath(slug)}/draft`, send('PUT', { text, baseVersion })),
  presence: (slug: string, editor: string) =>
    call<PresenceResponse>(`${launchPath(slug)}/presence`, send('POST', { editor })),
  leave: (slug: string, editor: string) =>
    call<unknown>(`${launchPath(slug)}/presence/${encodeURIComponent(editor)}`, { method: 'DELETE', keepalive: true }),
  discardDraft: (slug: string) => call<unknown>(`${launchPath(slug)}/draft`, { method: 'DELETE' }),
  check: (slug: string, text: string) => call<CheckResponse>(`${launchPath(slug)}/check`, send('POST', { text })),
  preview: (slug: string, phase?: string) =>
    call<PreviewResponse>(`${launchPath(slug)}/preview${phase ? `?phase=${encodeURIComponent(phase)}` : ''}`),
  previewByToken: (token: string) => call<PreviewResponse>(`/preview/${encodeURIComponent(token)}`),
  publish: (slug: string, request: PublishRequest) =>
    call<PublishResponse>(`${launchPath(slug)}/publish`, send('POST', request)),
  versions: (slug: string) => call<VersionSummary[]>(`${launchPath(slug)}/versions`),
  version: (slug: string, version: number) => call<VersionDetail>(`${launchPath(slug)}/versions/${version}`),
  restore: (slug: string, version: number) =>
    call<RestoreResponse>(`${launchPath(slug)}/versions/${version}/restore`, send('POST', {})),
  previewLink: (slug: string, phase?: string) =>
    call<PreviewLinkResponse>(`${launchPath(slug)}/preview-link`, send('POST', phase ? { phase } : {})),
  previewLinks: (slug: string) => call<PreviewLinkSummary[]>(`${launchPath(slug)}/preview-links`),
  revokePreviewLink: (slug: string, id: number) =>
    call<unknown>(`${launchPath(slug)}/preview-links/${id}`, { method: 'DELETE' }),
  newLaunch: (request: NewLaunchRequest) => call<NewLaunchResponse>('/launches', send('POST', request)),
  uploadImage: (slug: string, file: File) =>
    call<{ src: string; width: number; height: number }>(
      `${launchPath(slug)}/images?name=${encodeURIComponent(file.name)}`,
      {
        method: 'POST',
        headers: { 'content-type': file.type || 'application/octet-stream' },
        body: file,
      },
    ),
  people: () => call<Person[]>('/people'),
  invite: (request: InviteRequest) => call<InviteResponse>('/people', send('POST', request)),
  changeRole: (email: string, role: Role, launches?: string[]) =>
    call<unknown>(`/people/${encodeURIComponent(email)}`, send('PUT', { role, launches })),
  removePerson: (email: string) => call<unknown>(`/people/${encodeURIComponent(email)}`, { method: 'DELETE' }),
  /** A new one-time sign-in link for someone who forgot their password (or never used their invitation). */
  signInLink: (email: string) =>
    call<InviteResponse>(`/people/${encodeURIComponent(email)}/reset-link`, send('POST', {})),
  audit: () => call<AuditEntry[]>('/audit'),
  allocationLaunches: () => call<{ launches: Array<{ slug: string; siteName: string }> }>('/allocation'),
  board: (slug: string) => call<AllocationBoard>(`${launchPath(slug)}/allocation`),
  lots: (slug: string) => call<{ lots: BoardLot[] }>(`${launchPath(slug)}/lots`),
  allocate: (slug: string, choice: { worksheetId: number; lot: string; model: string }) =>
    call<unknown>(`${launchPath(slug)}/allocation/allocate`, send('POST', choice)),
  decide: (slug: string, outcome: 'waitlist' | 'decline', worksheetId: number, reason: string) =>
    call<unknown>(`${launchPath(slug)}/allocation/${outcome}`, send('POST', { worksheetId, reason })),
  proposals: (slug: string) =>
    call<{ proposals: BoardProposal[] }>(`${launchPath(slug)}/allocation/proposals`, send('POST', {})),
  confirm: (slug: string, proposals: BoardProposal[]) =>
    call<ConfirmResponse>(`${launchPath(slug)}/allocation/confirm`, send('POST', { proposals })),
  changeLot: (slug: string, lot: string, change: { price?: number; status?: string }) =>
    call<unknown>(`${launchPath(slug)}/lots/${encodeURIComponent(lot)}`, send('PATCH', change)),
  importLots: (slug: string, file: File) =>
    call<InventoryImportResponse>(`${launchPath(slug)}/lots/import`, {
      method: 'POST',
      headers: { 'content-type': 'text/csv' },
      body: file,
    }),
}

/** Where the studio serves a launch's pictures to a signed-in person (the draft may name some not yet live). */
export function launchImagesBase(slug: string): string {
  return `${apiRoot}${launchPath(slug)}/images/`
}

/** Where the studio serves a launch's pictures to a preview link. */
export function previewLinkImagesBase(token: string): string {
  return `${apiRoot}/preview/${encodeURIComponent(token)}/images/`
}
