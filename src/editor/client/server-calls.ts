import {
  tokenHeader,
  type CheckResponse,
  type ConflictResponse,
  type ErrorResponse,
  type ImageResponse,
  type SaveResponse,
  type StateResponse,
} from './protocol.ts'

// The one module of the editor page that talks to the editor server. Every call carries the session token that
// the server wrote into the page.

const token = document.querySelector<HTMLMetaElement>('meta[name="editor-token"]')?.content ?? ''

async function call<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(path, { ...init, headers: { ...init.headers, [tokenHeader]: token } })
  const body = (await response.json()) as T | ErrorResponse
  if (!response.ok && response.status !== 409) throw new Error((body as ErrorResponse).error ?? `The editor server answered ${response.status}.`)
  return { status: response.status, body: body as T }
}

const postJson = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })

/** The file as it is on disk now, with its problems. */
export async function fetchState(): Promise<StateResponse> {
  return (await call<StateResponse>('/api/state')).body
}

/** The version of the file on disk now ('' when it is gone). */
export async function fetchVersion(): Promise<string> {
  return (await call<{ version: string }>('/api/version')).body.version
}

/** The text's problems and, when it has none, the page for the previews. */
export async function checkText(text: string): Promise<CheckResponse> {
  return (await call<CheckResponse>('/api/check', postJson({ text }))).body
}

/** Saves the text over the version it was based on; a conflict when the file changed on disk meanwhile. */
export async function saveText(text: string, baseVersion: string): Promise<({ saved: true } & SaveResponse) | ({ saved: false } & ConflictResponse)> {
  const { status, body } = await call<SaveResponse | ConflictResponse>('/api/save', postJson({ text, baseVersion }))
  return status === 409 ? { saved: false, ...(body as ConflictResponse) } : { saved: true, ...(body as SaveResponse) }
}

/** Stores a picture in the launch's public/images/ and says how the config names it. */
export async function uploadImage(file: File): Promise<ImageResponse> {
  const init: RequestInit = { method: 'POST', headers: { 'x-file-name': encodeURIComponent(file.name), 'content-type': 'application/octet-stream' }, body: file }
  return (await call<ImageResponse>('/api/images', init)).body
}
