import { attributionOfUrl } from '../../schema/registration-contract.ts'

/**
 * Where the visit came from, kept for the browser session: the landing referrer, its utm_* parameters, the ad
 * click ids (gclid, gbraid, wbraid, fbclid, msclkid) and the landing page's path.
 */
export type Attribution = {
  referrer: string
  utm: Record<string, string>
  clickIds: Record<string, string>
  landingPage: string
}

const storageKey = 'registration-attribution'

function readStored(): Partial<Attribution> | undefined {
  try {
    const raw = sessionStorage.getItem(storageKey)
    return raw ? (JSON.parse(raw) as Partial<Attribution>) : undefined
  } catch {
    return undefined // storage blocked (private mode, sandboxed frame): attribution is best effort
  }
}

/**
 * Records the visit's attribution on landing: the referrer, utm_* parameters, click ids and path of the first page
 * view of the session; a later view with new utm_* parameters or click ids (a new campaign click) replaces them.
 */
export function captureAttribution(location: Location = window.location, referrer = document.referrer): Attribution {
  const current = attributionOfUrl(new URL(location.href))
  const stored = readStored()
  const newClick = Object.keys(current.utm).length > 0 || Object.keys(current.clickIds).length > 0
  const attribution: Attribution =
    stored && !newClick
      ? {
          referrer: stored.referrer ?? '',
          utm: stored.utm ?? {},
          clickIds: stored.clickIds ?? {},
          landingPage: stored.landingPage ?? current.landingPage,
        }
      : { referrer: stored?.referrer ?? referrer, ...current }
  try {
    sessionStorage.setItem(storageKey, JSON.stringify(attribution))
  } catch {
    // see readStored
  }
  return attribution
}
