/**
 * A value someone typed (an e-mail, a filter, a launch name, a forwarded address) as the server's log writes it: a JSON
 * string, quotes included, so a line break or a control character in it can never start a forged line of the log.
 * Every room logs such values through this one helper (it lives in schema/ because every room may import it).
 */
export function logValue(value: unknown): string {
  // JSON escapes line breaks and control characters; U+2028/U+2029 end a line in some log viewers too.
  return JSON.stringify(String(value)).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)
}
