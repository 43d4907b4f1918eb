/** Where the visit came from, kept for the browser session: the landing referrer and its utm_* parameters. */
export type Attribution = { referrer: string; utm: Record<string, string> }

const storageKey = 'registration-attribution'

function readStored(): Attribution | undefined {
  try {
    const raw = sessionStorage.getItem(storageKey)
    return raw ? (JSON.parse(raw) as Attribution) : undefined
  } catch {
    return undefined // storage blocked (private mode, sandboxed frame): attribution is best effort
  }
}

/**
 * Records the visit's attribution on landing: the referrer and utm_* parameters of the first page view of
 * the session; a later view with new utm_* parameters (a new campaign click) replaces them.
 */
export function captureAttribution(location: Location = window.location, referrer = document.referrer): Attribution {
  const utm: Record<string, string> = {}
  for (const [key, value] of new URLSearchParams(location.search)) {
    if (key.startsWith('utm_') && value) utm[key] = value.slice(0, 200)
  }
  const stored = readStored()
  const attribution = stored && Object.keys(utm).length === 0 ? stored : { referrer: stored?.referrer ?? referrer, utm }
  try {
    sessionStorage.setItem(storageKey, JSON.stringify(attribution))
  } catch {
    // see readStored
  }
  return attribution
}
