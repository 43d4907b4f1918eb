/**
 * The answer to a plain form post (no JavaScript) whose fields need attention, on the Node server: the prerendered
 * home page (dist/index.html) with the form filled in again, each field's message under it, the first invalid field
 * focused (the browser scrolls to it), and no scripts, so the page is exactly what a visitor without JavaScript can
 * act on: correct, and send again. Works on the markup src/form/RegistrationForm.tsx renders: inputs named by
 * field, each pointing at its message element with aria-describedby. Web-standard code only.
 */
import type { FieldMessages } from '../../../schema/registration-rules.ts'

// This room may not import the delivery room's helper: the same five escapes.
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

/** What filling the form's controls needs and finds out: which fields it showed, which messages go where. */
type Filling = {
  values: Record<string, unknown>
  errors: FieldMessages
  shown: Set<string>
  /** The id of a message element → the message it shows. */
  messageTargets: Map<string, string>
  focused: boolean
}

/** The control's name, when it is a field with a value or a message (else the tag is left as it is). */
function fieldOf(filling: Filling, open: string): string | undefined {
  const name = attributesOf(open).get('name')
  if (name === undefined || !(name in filling.values || name in filling.errors)) return undefined
  filling.shown.add(name)
  return name
}

/** The control's opening tag marked invalid (its message placed, the first one focused) or valid. */
function markMessage(filling: Filling, name: string, open: string): string {
  const message = filling.errors[name]
  let out = setAttribute(open, 'aria-invalid', message ? 'true' : undefined)
  if (!message) return out
  // RJSF's own widgets name the message first, then their description and help.
  const describedBy = attributesOf(open).get('aria-describedby')?.split(' ')[0]
  if (describedBy) filling.messageTargets.set(describedBy, message)
  if (!filling.focused) {
    out = setAttribute(out, 'autofocus', '')
    filling.focused = true
  }
  return out
}

function fillInput(filling: Filling, tag: string): string {
  const name = fieldOf(filling, tag)
  if (name === undefined) return tag
  const attributes = attributesOf(tag)
  const value = filling.values[name]
  const text = textOf(value)
  const type = attributes.get('type') ?? 'text'
  let out = tag
  if (type === 'radio')
    out = setAttribute(out, 'checked', attributes.get('value') === text && text !== '' ? '' : undefined)
  // A box without a value attribute posts "on", which the function reads as true (a yes/no field).
  else if (type === 'checkbox')
    out = setAttribute(out, 'checked', value === true || text === (attributes.get('value') ?? 'on') ? '' : undefined)
  else if (type !== 'hidden') out = setAttribute(out, 'value', text)
  return markMessage(filling, name, out)
}

function fillSelect(filling: Filling, whole: string, open: string, options: string, close: string): string {
  const name = fieldOf(filling, open)
  if (name === undefined) return whole
  const text = textOf(filling.values[name])
  const chosen = options.replace(/<option\b[^>]*>/g, (tag) =>
    setAttribute(tag, 'selected', attributesOf(tag).get('value') === text ? '' : undefined),
  )
  return `${markMessage(filling, name, open)}${chosen}${close}`
}

/** The form's controls showing the values, each message in its field's message element. */
function fillControls(form: string, filling: Filling): string {
  let out = form.replace(/<input\b[^>]*>/g, (tag) => fillInput(filling, tag))
  out = out.replace(/(<select\b[^>]*>)([\s\S]*?)(<\/select>)/g, (whole, open: string, options: string, close: string) =>
    fillSelect(filling, whole, open, options, close),
  )
  out = out.replace(/(<textarea\b[^>]*>)[\s\S]*?(<\/textarea>)/g, (whole, open: string, close: string) => {
    const name = fieldOf(filling, open)
    if (name === undefined) return whole
    return `${markMessage(filling, name, open)}${escapeHtml(textOf(filling.values[name]))}${close}`
  })
  for (const [id, message] of filling.messageTargets) {
    out = out.replace(
      new RegExp(`(<p\\b[^>]*\\sid="${id.replace(/[^\w-]/g, '')}"[^>]*>)[\\s\\S]*?(</p>)`),
      (_whole, open: string, close: string) => `${open}${escapeHtml(message)}${close}`,
    )
  }
  return out
}

/**
 * The home page's HTML with its registration form showing `values` and `errors` (field → message). The fields the
 * first page shows only without JavaScript (those of an answer, in <noscript>: src/form/NoScriptBranches.tsx) are
 * shown whatever the browser runs: this page has no scripts. A field with a message that the page has nowhere is
 * added above the button as a text field, labelled by `labelOf`.
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
  const filling: Filling = { values, errors, shown: new Set(), messageTargets: new Map(), focused: false }
  let form = fillControls(html.slice(formStart, formEnd).replace(/<(\/?)noscript>/g, '<$1div>'), filling)
  const unshown = Object.entries(errors).filter(([field]) => !filling.shown.has(field))
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
