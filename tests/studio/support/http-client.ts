/** A browser against a real server: its own cookies, its own address (X-Forwarded-For, believed under TRUST_PROXY). */
export type HttpClient = {
  cookies: Map<string, string>
  send(pathname: string, init?: { method?: string; form?: Record<string, string>; json?: unknown }): Promise<Response>
}

/** A client of the server at `baseUrl` whose pages are at `origin` (sent as Origin on every request). */
export function httpClient(baseUrl: () => string, origin: () => string, address = '198.51.100.1'): HttpClient {
  const cookies = new Map<string, string>()
  async function send(pathname: string, init: { method?: string; form?: Record<string, string>; json?: unknown } = {}) {
    const headers: Record<string, string> = { 'x-forwarded-for': address, origin: origin() }
    if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
    let body: string | undefined
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded'
      body = new URLSearchParams(init.form).toString()
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(init.json)
    }
    const method = init.method ?? (body === undefined ? 'GET' : 'POST')
    const res = await fetch(`${baseUrl()}${pathname}`, { method, headers, body, redirect: 'manual' })
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const [name, value] = pair!.split('=') as [string, string]
      if (/max-age=0/i.test(line) || value === '') cookies.delete(name)
      else cookies.set(name, value)
    }
    return res
  }
  return { cookies, send }
}
