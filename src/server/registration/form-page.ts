/**
 * The answer to a plain form post (no JavaScript) whose fields need attention, on the Node server: the prerendered
 * home page (dist/index.html) with the form filled in again, each field's message under it, the first invalid field
 * focused (the browser scrolls to it), and no scripts, so the page is exactly what a visitor without JavaScript can
 * act on: correct, and send again. Works on the markup src/form/RegistrationForm.tsx renders: inputs named by
 * field, each pointing at its message element with aria-describedby. Web-standard code only.
 */
import type { FieldMessages } from '../../../schema/registration-rules.ts'

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c)

const attributePattern = /\s([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?/g

function attributesOf(tag: string): Map<string, string> {
  const out = new Map<string, string>()
  for (const match of tag.matchAll(attributePattern)) out.set(match[1]!.toLowerCase(), match[2] ?? '')
  return out
}

/** The tag with `name` removed (any case), and added with `value` when one is given. */
function setAttribute(tag: string, name: string, value: string | undefined): string {
  const without = tag.replace(new RegExp(`\\s${name}(?:="[^"]*")?(?=[\\s/>])`, 'gi'), '')
  if (value === undefined) return without
  // A replacer function: in a replacement string `$\``, `$'` and `$&` are patterns, and a visitor's value may hold
  // them.
  return without.replace(/\s*(\/?)>$/, (_end, slash: string) => ` ${name}="${escapeHtml(value)}"${slash}>`)
}

/** The class of the first element matching `pattern` in `html`, to give an added field the form's own look. */
/** A value as an input shows it: a form's values are text, numbers or booleans. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return value === undefined || value === null ? '' : JSON.stringify(value)
}

function classOf(html: string, pattern: RegExp): string {
  const tag = pattern.exec(html)?.[0]
  return tag ? (attributesOf(tag).get('class') ?? '') : ''
}

/** A text field the prerendered form did not show, in the look of the form's first one. */
function addedField(form: string, field: string, label: string, value: unknown, message: string): string {
  const id = `nojs_${field.replace(/[^\w-]/g, '_')}`
  const labelClass = classOf(form, /<label\b[^>]*\sfor="[^"]*"[^>]*>/)
  const inputClass = classOf(form, /<input\b(?=[^>]*\stype="(?:text|email|tel)")[^>]*>/)
  const errorClass = classOf(form, /<p\b[^>]*\sid="[^"]*__error"[^>]*>/)
  const text = textOf(value)
  return (
    `<div><label for="${id}" class="${escapeHtml(labelClass)}">${escapeHtml(label)}</label>` +
    `<input id="${id}" name="${escapeHtml(field)}" type="text" value="${escapeHtml(text)}" aria-invalid="true" aria-describedby="${id}__error" class="${escapeHtml(inputClass)}"/>` +
    `<p id="${id}__error" class="${escapeHtml(errorClass)}">${escapeHtml(message)}</p></div>`
  )
}

/**
 * The home page's HTML with its registration form showing `values` and `errors` (field → message). A field with a
 * message that the prerendered form does not show (a conditional one, whose condition the empty form did not meet)
 * is added above the button as a text field, labelled by `labelOf`.
 */
export function fillFormPage(
  html: string,
  values: Record<string, unknown>,
  errors: FieldMessages,
  labelOf: (field: string) => string = (f) => f,
  /** Hidden inputs to carry into the next post (the address of the page the visitor first sent the form from). */
  hidden: Record<string, string> = {},
): string {
  const formStart = html.search(/<form[\s>]/)
  const formEnd = html.indexOf('</form>', formStart)
  if (formStart === -1 || formEnd === -1) return html
  let form = html.slice(formStart, formEnd)
  const messageTargets = new Map<string, string>()
  const shown = new Set<string>()
  let focused = false

  form = form.replace(/<input\b[^>]*>/g, (tag) => {
    const attributes = attributesOf(tag)
    const name = attributes.get('name')
    if (name === undefined || !(name in values || name in errors)) return tag
    shown.add(name)
    const value = values[name]
    const text = textOf(value)
    let out = tag
    const type = attributes.get('type') ?? 'text'
    if (type === 'radio' || type === 'checkbox')
      out = setAttribute(out, 'checked', attributes.get('value') === text && text !== '' ? '' : undefined)
    else if (type !== 'hidden') out = setAttribute(out, 'value', text)
    const message = errors[name]
    out = setAttribute(out, 'aria-invalid', message ? 'true' : undefined)
    if (message) {
      const describedBy = attributes.get('aria-describedby')
      if (describedBy) messageTargets.set(describedBy, message)
      if (!focused) {
        out = setAttribute(out, 'autofocus', '')
        focused = true
      }
    }
    return out
  })
  form = form.replace(/(<textarea\b[^>]*>)[\s\S]*?(<\/textarea>)/g, (whole, open: string, close: string) => {
    const name = attributesOf(open).get('name')
    if (name === undefined || !(name in values || name in errors)) return whole
    shown.add(name)
    const value = values[name]
    return `${open}${escapeHtml(textOf(value))}${close}`
  })
  for (const [id, message] of messageTargets) {
    form = form.replace(
      new RegExp(`(<p\\b[^>]*\\sid="${id.replace(/[^\w-]/g, '')}"[^>]*>)[\\s\\S]*?(</p>)`),
      (_whole, open: string, close: string) => `${open}${escapeHtml(message)}${close}`,
    )
  }
  const unshown = Object.entries(errors).filter(([field]) => !shown.has(field))
  if (unshown.length > 0) {
    const added = unshown
      .map(([field, message]) => addedField(form, field, labelOf(field), values[field], message))
      .join('')
    form = form.replace(/<button\b[^>]*type="submit"/, (button) => `${added}${button}`)
  }
  const carried = Object.entries(hidden)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}"/>`)
    .join('')
  form = form.replace(/^<form\b[^>]*>/, (open) => `${open}${carried}`)
  const page = html.slice(0, formStart) + form + html.slice(formEnd)
  // No scripts: this page is the answer to a post, not the home page at its own address (its code would route here
  // to the not-found page); the form on it posts again like the first one.
  return page
    .replace(/<script\b(?![^>]*application\/(?:ld\+)?json)[^>]*>[\s\S]*?<\/script>/g, '')
    .replace(/<link rel="modulepreload"[^>]*>/g, '')
}
