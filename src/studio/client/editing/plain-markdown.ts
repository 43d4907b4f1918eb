const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/**
 * Stands in for codemirror-json-schema's Markdown renderer (see src/build/plain-markdown-plugin.ts): the schema's texts
 * are
 * plain sentences, shown escaped, with `code` in backticks set as code. The result is used as innerHTML.
 */
export function renderMarkdown(markdown: string, inline = true): string {
  const html = markdown.replace(/[&<>"']/g, (c) => escapes[c] ?? c).replace(/`([^`]+)`/g, '<code>$1</code>')
  return inline ? html : `<p>${html.replace(/\n{2,}/g, '</p><p>').replace(/\n/g, '<br>')}</p>`
}
