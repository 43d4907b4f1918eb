const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** Escapes text for HTML element content and quoted attribute values: the notification e-mail and the page's head. */
export function escapeHtml(text: string): string {
  // Most values have nothing to escape: testing is cheaper than replacing.
  if (!/[&<>"']/.test(text)) return text
  return text.replace(/[&<>"']/g, (ch) => htmlEscapes[ch] ?? ch)
}
