/**
 * What a lead records about how it was given, in forms that prove something and cannot be turned against the team:
 * the consent text the server itself showed (CASL asks for proof of consent) with its SHA-256 as its version, the
 * page it came from only when that page is ours, and how the page address and referrer are shown in the team's mail
 * (never as something a mail program would link). Web-standard APIs only: the Deno entry runs this file too.
 */

/** The consent columns of a lead. */
export type ConsentEvidence = {
  /** The launch's consent note as the server knows it (the config's form.consent), never the browser's copy. */
  consentText: string
  /** SHA-256 of consentText's UTF-8 bytes, hex: which version of the note was shown. */
  consentSha256: string
  /** The text the browser said it showed, only when it differs from consentText (null when it matched or sent none). */
  consentReported: string | null
}

const hashes = new Map<string, Promise<string>>()

/** SHA-256 of a text's UTF-8 bytes, as 64 lower-case hex digits (what `printf %s "$text" | sha256sum` prints). */
export function sha256Hex(text: string): Promise<string> {
  let hash = hashes.get(text)
  if (!hash) {
    // A few consent notes, hashed once each: the promise is kept, not recomputed for every lead.
    hash = crypto.subtle
      .digest('SHA-256', new TextEncoder().encode(text))
      .then((digest) => Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, '0')).join(''))
    hashes.set(text, hash)
  }
  return hash
}

// HTML shows the note with runs of whitespace collapsed, so a copy that differs only there is the same note.
const sameWords = (a: string, b: string) => a.replace(/\s+/g, ' ').trim() === b.replace(/\s+/g, ' ').trim()

/** The consent columns for a lead: the server's own text and hash, and the browser's report only when it differs. */
export async function consentEvidence(shown: string, reported: string | null): Promise<ConsentEvidence> {
  return {
    consentText: shown,
    consentSha256: await sha256Hex(shown),
    consentReported: reported === null || sameWords(reported, shown) ? null : reported,
  }
}

const maxPageAddress = 2048

/**
 * The page address as stored: scheme://host/path of an http(s) page on one of our origins (`isOurs` gets its
 * origin), without query, fragment or credentials (they may carry personal data); null for anything else, so a
 * forged or odd address costs the visitor nothing but the attribution.
 */
export function ownPageAddress(raw: string | null, isOurs: (origin: string) => boolean): string | null {
  if (raw === null || !URL.canParse(raw)) return null
  const url = new URL(raw)
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !isOurs(url.origin)) return null
  const address = `${url.origin}${url.pathname}`
  return address.length <= maxPageAddress ? address : null
}

/** Dots as `[.]`: no mail program makes a link of `evil[.]example`, and a person still reads it. */
function defang(text: string): string {
  return text.replaceAll('.', '[.]')
}

/**
 * The page as the team's mail shows it: its path only (the host is ours), dots defanged since the visitor chose the
 * path too (`/go.evil.example` would otherwise read as a link); '—' when none was kept.
 */
export function pageForMail(pageUrl: string | null): string {
  if (pageUrl === null || !URL.canParse(pageUrl)) return '—'
  return defang(new URL(pageUrl).pathname)
}

/** The referrer as the team's mail shows it: its host only, defanged; 'direct' when there was none. */
export function referrerForMail(referrer: string | null): string {
  if (referrer === null || referrer.trim() === '') return 'direct'
  const url = URL.canParse(referrer) ? new URL(referrer) : undefined
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '')
    return 'unknown (not a web address)'
  return defang(url.hostname)
}
