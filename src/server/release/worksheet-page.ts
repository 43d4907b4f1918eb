/**
 * The realtor's worksheet page (issue 45), rendered on the server as plain HTML: it works without JavaScript. The
 * realtor's clients, the form (or, outside the worksheet window, when it opens), and their worksheets with outcomes.
 * Every word is the launch's (page.config.json `worksheets.texts`); every value is escaped. Its one <style> (the
 * site's stylesheet and the page's own rules) is allowed by its hash in the page's own Content-Security-Policy.
 */
import { fillWorksheetText, type WorksheetState, type WorksheetTexts } from '../../../schema/worksheets.ts'
import { escapeHtml } from '../delivery/escape-html.ts'
import type { RealtorClient, StoredWorksheet } from '../store/release.ts'
import { worksheetLimits, type ChoiceOption, type WorksheetErrors, type WorksheetValues } from './worksheet-form.ts'
import { choiceWords } from './worksheet-messages.ts'

/** Everything the page shows. */
export type WorksheetView = {
  lang: string
  siteName: string
  texts: WorksheetTexts
  pageCss?: string | undefined
  /** The form's address: this page's own path and query (the signed link). */
  action: string
  clients: readonly RealtorClient[]
  worksheets: readonly StoredWorksheet[]
  state: WorksheetState
  options: readonly ChoiceOption[]
  values?: WorksheetValues | undefined
  errors?: WorksheetErrors | undefined
  /** A refusal of the whole form (too many sends, not stored), shown above it. */
  notice?: string | undefined
  /** The worksheet just sent, for its notice. */
  sent?: StoredWorksheet | undefined
  /** A time (ISO 8601 or ms) in the launch's time zone and language. */
  time: (at: string | number) => string
}

// The page's own rules, after the site's stylesheet: a single column that fits 390 px, fields a finger can hit.
const ownCss = `
.ws{max-width:46rem;margin:0 auto;padding:1.5rem 1.25rem 3rem;color:#1c2420;font-family:system-ui,sans-serif;line-height:1.5}
.ws h1{font-size:1.875rem;line-height:1.2;margin:0 0 .75rem}.ws h2{font-size:1.375rem;margin:2rem 0 .75rem}
.ws p{margin:0 0 1rem}.ws ul{list-style:disc;margin:0 0 1rem;padding-left:1.25rem}.ws li{margin:0 0 .5rem}
.ws .box h2{margin:0 0 .5rem}.ws .box p:last-child,.ws .box ul:last-child{margin-bottom:0}
.ws label,.ws legend{display:block;font-weight:600;margin:0 0 .25rem}
.ws .f{margin:0 0 1.25rem}.ws fieldset{border:1px solid #6b7570;border-radius:.5rem;padding:1rem;margin:0 0 1.25rem}
.ws input[type=text],.ws input[type=email],.ws input[type=tel],.ws select,.ws textarea{box-sizing:border-box;width:100%;
min-height:2.75rem;padding:.5rem .75rem;border:1px solid #4a5550;border-radius:.375rem;background:#fff;color:#1c2420;font:inherit}
.ws textarea{min-height:6rem}.ws .c{display:flex;gap:.75rem;align-items:flex-start;font-weight:600}
.ws .c input{width:1.5rem;height:1.5rem;margin:0;flex:none}
.ws .e{color:#a4161a;font-weight:600;margin:.25rem 0 0}.ws [aria-invalid=true]{border-color:#a4161a;border-width:2px}
.ws .box{border-left:4px solid #1f3d2b;background:#e3ece5;padding:.75rem 1rem;margin:0 0 1.5rem}
.ws .bad{border-left-color:#a4161a;background:#fbeaea}.ws .muted{color:#4a5550}
.ws button{min-height:2.75rem;padding:.625rem 1.5rem;border:0;border-radius:9999px;background:#1f3d2b;color:#fff;
font:inherit;font-weight:600;cursor:pointer}.ws a{color:#1f3d2b;text-decoration:underline}
.ws :focus-visible{outline:3px solid #8a5a14;outline-offset:2px}
`

/** The page's stylesheet: the site's (when the launch has one), then the page's own rules. */
export function worksheetCss(pageCss: string | undefined): string {
  return `${pageCss ?? ''}\n${ownCss}`
}

const e = escapeHtml

function attrs(list: Record<string, string | number | boolean | undefined>): string {
  return Object.entries(list)
    .filter(([, value]) => value !== undefined && value !== false)
    .map(([name, value]) => (value === true ? ` ${name}` : ` ${name}="${e(String(value))}"`))
    .join('')
}

function errorOf(view: WorksheetView, name: keyof WorksheetErrors): string | undefined {
  return view.errors?.[name]
}

/** A labelled field with its message under it, linked by aria-describedby. */
function field(
  view: WorksheetView,
  name: keyof WorksheetErrors,
  label: string,
  control: (a: string) => string,
): string {
  const error = errorOf(view, name)
  const described = error ? attrs({ 'aria-describedby': `m-${name}`, 'aria-invalid': 'true' }) : ''
  return `<div class="f"><label for="f-${name}">${e(label)}</label>${control(`id="f-${name}" name="${name}"${described}`)}${
    error ? `<p class="e" id="m-${name}">${e(error)}</p>` : ''
  }</div>`
}

function input(view: WorksheetView, name: 'clientName' | 'clientEmail' | 'clientPhone', label: string, more: string) {
  const value = view.values?.[name] ?? ''
  return field(view, name, label, (a) => `<input ${a}${attrs({ value, maxlength: worksheetLimits[name] })} ${more}>`)
}

function choiceSelect(view: WorksheetView, name: 'choice1' | 'choice2' | 'choice3', label: string): string {
  const chosen = view.values?.[name] ?? ''
  const offered = view.options.some((option) => option.value === chosen)
  // A choice taken meanwhile stays selected, so the refused form shows what was chosen, with its message.
  const kept = chosen !== '' && !offered ? `<option value="${e(chosen)}" selected>${e(chosen)}</option>` : ''
  const options = view.options
    .map((o) => `<option${attrs({ value: o.value, selected: o.value === chosen })}>${e(o.label)}</option>`)
    .join('')
  const required = name === 'choice1' ? ' required' : ''
  return field(
    view,
    name,
    label,
    (a) => `<select ${a}${required}><option value="">${e(view.texts.noChoice)}</option>${kept}${options}</select>`,
  )
}

function errorSummary(view: WorksheetView): string {
  if (view.notice) return `<div class="box bad" role="alert"><p>${e(view.notice)}</p></div>`
  const errors = Object.entries(view.errors ?? {})
  if (errors.length === 0) return ''
  const items = errors.map(([name, message]) => `<li><a href="#f-${name}">${e(message)}</a></li>`).join('')
  return `<div class="box bad" role="alert"><p>${e(view.texts.errorSummary)}</p><ul>${items}</ul></div>`
}

function depositFieldset(view: WorksheetView): string {
  const t = view.texts
  const error = errorOf(view, 'deposit')
  const described = error ? attrs({ 'aria-describedby': 'm-deposit', 'aria-invalid': 'true' }) : ''
  return `<fieldset><legend>${e(t.depositHeading)}</legend><p>${e(t.depositStructure)}</p>
<div class="c"><input type="checkbox" id="f-deposit" name="deposit" value="yes" required${view.values?.deposit ? ' checked' : ''}${described}><label for="f-deposit">${e(t.depositAccept)}</label></div>${
    error ? `<p class="e" id="m-deposit">${e(error)}</p>` : ''
  }</fieldset>`
}

/** The form, or outside the worksheet window the sentence saying when it opens. */
function formSection(view: WorksheetView): string {
  const t = view.texts
  const head = `<h2 id="h-form">${e(t.formHeading)}</h2>`
  if (!view.state.open) {
    const text =
      view.state.opensAt === undefined
        ? t.closedForGood
        : fillWorksheetText(t.closedText, { site: view.siteName, opens: view.time(view.state.opensAt) })
    return `<section aria-labelledby="h-form">${head}<p class="box">${e(text)}</p></section>`
  }
  const names = [...new Set(view.clients.map((client) => client.name).filter((name) => name !== ''))]
  const datalist = `<datalist id="ws-clients">${names.map((name) => `<option value="${e(name)}"></option>`).join('')}</datalist>`
  const notes = view.values?.notes ?? ''
  return `<section aria-labelledby="h-form">${head}${errorSummary(view)}
<form method="post" action="${e(view.action)}" novalidate>
${input(view, 'clientName', t.clientName, 'type="text" autocomplete="off" list="ws-clients" required')}${datalist}
${input(view, 'clientEmail', t.clientEmail, 'type="email" autocomplete="off" required')}
${input(view, 'clientPhone', t.clientPhone, 'type="tel" autocomplete="off"')}
${choiceSelect(view, 'choice1', t.firstChoice)}
${choiceSelect(view, 'choice2', t.secondChoice)}
${choiceSelect(view, 'choice3', t.thirdChoice)}
${depositFieldset(view)}
${field(view, 'notes', t.notes, (a) => `<textarea ${a}${attrs({ maxlength: worksheetLimits.notes, rows: 4 })}>${e(notes)}</textarea>`)}
<button type="submit">${e(t.submit)}</button>
</form></section>`
}

function outcomeOf(worksheet: StoredWorksheet, t: WorksheetTexts): string {
  const values = {
    lot: worksheet.allocatedLot ?? '',
    model: worksheet.allocatedModel ?? '',
    reason: worksheet.reason ?? '',
  }
  const text = {
    received: t.outcomeReceived,
    allocated: t.outcomeAllocated,
    waitlisted: t.outcomeWaitlisted,
    declined: t.outcomeDeclined,
  }[worksheet.outcome]
  return fillWorksheetText(text, values)
}

function listsSection(view: WorksheetView): { clients: string; worksheets: string } {
  const t = view.texts
  const clients = view.clients.length
    ? `<ul>${view.clients
        .map(
          (c) =>
            `<li>${[c.name, c.email, c.phone]
              .filter((v) => v)
              .map(e)
              .join(' · ')}</li>`,
        )
        .join('')}</ul>`
    : `<p class="muted">${e(t.noClients)}</p>`
  const worksheets = view.worksheets.length
    ? `<ul>${[...view.worksheets]
        .reverse()
        .map((w) => {
          const line = fillWorksheetText(t.worksheetLine, {
            number: w.number,
            client: w.clientName,
            time: view.time(w.receivedAt),
          })
          const choices = w.choices.map((c) => choiceWords(c, t)).join(' · ')
          return `<li><strong>${e(line)}</strong><br>${e(choices)}<br><span>${e(outcomeOf(w, t))}</span></li>`
        })
        .join('')}</ul>`
    : `<p class="muted">${e(t.noWorksheets)}</p>`
  return { clients, worksheets }
}

/** The whole page. */
export function worksheetPageHtml(view: WorksheetView): string {
  const t = view.texts
  const fill = (text: string, values: Record<string, string | number> = {}) =>
    fillWorksheetText(text, { site: view.siteName, ...values })
  const sent = view.sent
    ? `<div class="box" role="status"><h2>${e(fill(t.sentHeading, { number: view.sent.number }))}</h2><p>${e(
        fill(t.sentText, { number: view.sent.number, time: view.time(view.sent.receivedAt) }),
      )}</p></div>`
    : ''
  const lists = listsSection(view)
  return worksheetDocument({
    lang: view.lang,
    title: fill(t.pageTitle),
    css: worksheetCss(view.pageCss),
    body: `<h1>${e(fill(t.heading))}</h1>
<p>${e(fill(t.intro))}</p>
${sent}
${formSection(view)}
${titledSection('h-worksheets', t.worksheetsHeading, lists.worksheets)}
${titledSection('h-clients', t.clientsHeading, lists.clients)}`,
  })
}

/** A section named by its heading (`id` the heading's); `html` its content, already escaped. */
function titledSection(id: string, heading: string, html: string): string {
  return `<section aria-labelledby="${id}"><h2 id="${id}">${e(heading)}</h2>${html}</section>`
}

/** A worksheet page's document (its page, a wrong link's, the link request's), never indexed; `body` is HTML. */
export function worksheetDocument(page: { lang: string; title: string; css: string; body: string }): string {
  return `<!doctype html>
<html lang="${page.lang.replace(/[^A-Za-z0-9-]/g, '')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${e(page.title)}</title>
<style>${page.css}</style>
</head>
<body>
<main class="ws">
${page.body}
</main>
</body>
</html>
`
}
