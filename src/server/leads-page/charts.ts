import { html, raw } from 'hono/html'
import type { HtmlEscapedString } from 'hono/utils/html'

/**
 * The dashboard's charts as inline SVG, drawn on the server: no script, no chart library. Each is an `img` named by
 * its <title>, and the page puts the same numbers in a table beside it. Widths are percentages of the chart's width
 * and heights are pixels, so text keeps its size on a phone and bars stretch on a desk. Meaning never rests on colour
 * alone: every bar is labelled, and the one two-part bar (registrations from an e-mail link) is hatched.
 */

type Html = HtmlEscapedString | Promise<HtmlEscapedString>

const ink = '#1c2420'
const muted = '#4a5550'
const bar = '#2a5039'
const grid = '#d9cfb8'
const accent = '#e3b04b'

/** A percentage with at most two decimals, as an SVG length. */
const pct = (value: number) => `${Math.round(value * 100) / 100}%`

/** A bar's length as a share of the largest value; a bar with a value is never thinner than a sliver. */
function share(value: number, max: number): number {
  if (value <= 0 || max <= 0) return 0
  return Math.max(0.75, (value / max) * 100)
}

/** One labelled row of a horizontal bar chart: the words above the bar, the number in them. */
export type BarRow = { label: string; value: number; detail?: string | undefined }

/** A horizontal bar chart, one labelled bar a row (sources, realtors and buyers, statuses). */
export function barChart(id: string, title: string, rows: BarRow[]): Html {
  const max = Math.max(0, ...rows.map((row) => row.value))
  const rowHeight = 46
  return html`<svg class="lp-chart" width="100%" height="${rows.length * rowHeight}" role="img" aria-labelledby="${id}-title" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${title}</title>
${rows.map((row, i) => {
  const y = i * rowHeight
  return html`<text x="0" y="${y + 16}" fill="${ink}" font-size="15">${row.label} <tspan font-weight="700">${row.value.toLocaleString('en-CA')}</tspan>${row.detail ? html`<tspan fill="${muted}"> · ${row.detail}</tspan>` : ''}</text>
<rect x="0" y="${y + 23}" width="100%" height="14" rx="3" fill="${grid}" opacity="0.45"></rect>
<rect x="0" y="${y + 23}" width="${pct(share(row.value, max))}" height="14" rx="3" fill="${bar}"></rect>`
})}
</svg>`
}

/** One day of the daily chart: its short label, its registrations and how many of them came from an e-mail link. */
export type DayBar = { label: string; value: number; hatched: number }

/**
 * The registrations-per-day chart: a bar a day, oldest on the left; the part from an e-mail link hatched. A line
 * and a number mark the highest day; the first, middle and last days are named under the bars.
 */
export function dayChart(id: string, title: string, days: DayBar[]): Html {
  const max = Math.max(1, ...days.map((d) => d.value))
  const top = 22
  const plot = 140
  const height = top + plot + 24
  const slot = 100 / Math.max(1, days.length)
  const yOf = (value: number) => top + plot - (value / max) * plot
  const named = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1])
  return html`<svg class="lp-chart" width="100%" height="${height}" role="img" aria-labelledby="${id}-title" xmlns="http://www.w3.org/2000/svg">
<title id="${id}-title">${title}</title>
<defs><pattern id="${id}-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="${accent}"></rect><line x1="0" y1="0" x2="0" y2="6" stroke="${ink}" stroke-width="2.5"></line></pattern></defs>
<line x1="0" x2="100%" y1="${top}" y2="${top}" stroke="${grid}" stroke-dasharray="4 4"></line>
<text x="0" y="${top - 6}" fill="${muted}" font-size="13">${max.toLocaleString('en-CA')} a day</text>
<line x1="0" x2="100%" y1="${top + plot}" y2="${top + plot}" stroke="${muted}"></line>
${days.map((d, i) => {
  const x = pct(i * slot + slot * 0.15)
  const width = pct(slot * 0.7)
  return html`${d.value > 0 ? html`<rect x="${x}" y="${yOf(d.value)}" width="${width}" height="${Math.max(1, (d.value / max) * plot)}" fill="${bar}"></rect>` : ''}${
    d.hatched > 0
      ? html`<rect x="${x}" y="${yOf(d.value)}" width="${width}" height="${Math.max(1, (d.hatched / max) * plot)}" fill="url(#${id}-hatch)" stroke="${ink}" stroke-width="1"></rect>`
      : ''
  }`
})}
${days.map((d, i) =>
  named.has(i)
    ? html`<text x="${pct(i === 0 ? 0 : i === days.length - 1 ? 100 : i * slot + slot / 2)}" y="${height - 6}" fill="${muted}" font-size="13" text-anchor="${i === 0 ? 'start' : i === days.length - 1 ? 'end' : 'middle'}">${d.label}</text>`
    : '',
)}
</svg>`
}

/** A small swatch for a legend, hatched or plain, hidden from screen readers (the words beside it say it). */
export function swatch(id: string, hatched: boolean): Html {
  return html`<svg width="18" height="14" aria-hidden="true" focusable="false" xmlns="http://www.w3.org/2000/svg">${
    hatched
      ? raw(`<rect width="18" height="14" fill="url(#${id}-hatch)" stroke="${ink}" stroke-width="1"></rect>`)
      : raw(`<rect width="18" height="14" fill="${bar}"></rect>`)
  }</svg>`
}
