/**
 * The leads page's stylesheet, served as /leads/leads.css: the site's colours (src/styles.css) without Tailwind,
 * so the public page's CSS does not change. Cards below 60rem, a table above.
 */
export const leadsCss = `
:root {
  --forest-900: #1f3d2b; --forest-800: #2a5039; --forest-100: #e3ece5;
  --cream-50: #fbf9f4; --cream-100: #f7f3ea; --cream-200: #ede5d3;
  --brass-300: #efc56b; --brass-400: #e3b04b; --brass-700: #8a5a14;
  --ink: #1c2420; --ink-muted: #4a5550; --danger: #9b1c1c;
  color-scheme: light;
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--cream-50); color: var(--ink); line-height: 1.5;
  font: 1rem/1.5 ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
h1, h2 { font-family: "Iowan Old Style", "Palatino Linotype", Palatino, Georgia, "Times New Roman", serif; line-height: 1.2; }
h1 { font-size: 1.75rem; margin: 0 0 1rem; color: var(--forest-900); }
a { color: var(--forest-900); text-underline-offset: 0.15em; }
:focus-visible { outline: 3px solid var(--brass-700); outline-offset: 2px; }
.lp-visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

.lp-button {
  display: inline-flex; align-items: center; justify-content: center; min-height: 2.75rem; padding: 0.5rem 1.25rem;
  border: 2px solid var(--forest-900); border-radius: 999px; background: var(--forest-900); color: #fff;
  font: inherit; font-weight: 600; text-decoration: none; cursor: pointer; white-space: nowrap;
}
.lp-button:hover { background: var(--forest-800); border-color: var(--forest-800); }
.lp-button-quiet { background: transparent; color: var(--forest-900); }
.lp-button-quiet:hover { background: var(--forest-100); border-color: var(--forest-900); }

.lp-signin { max-width: 28rem; margin: 0 auto; padding: 2rem 1.25rem 3rem; }
.lp-panel { background: #fff; border: 1px solid var(--cream-200); border-radius: 0.75rem; padding: 1.5rem 1.25rem; }
.lp-lead { color: var(--ink-muted); margin: 0 0 1.5rem; }
.lp-stack { display: grid; gap: 0.5rem; }
.lp-stack .lp-button { margin-top: 0.75rem; }
label { font-weight: 600; }
input[type="password"], input[type="search"], input[type="text"], input[type="date"], select, textarea {
  width: 100%; min-height: 2.75rem; padding: 0.5rem 0.75rem; font: inherit; color: var(--ink);
  background: #fff; border: 2px solid var(--ink-muted); border-radius: 0.5rem;
}
input[aria-invalid="true"], select[aria-invalid="true"] { border-color: var(--danger); }
textarea { display: block; resize: vertical; min-height: 5.5rem; }
.lp-notice { margin: 0 0 1rem; padding: 0.75rem 1rem; border-radius: 0.5rem; border-left: 4px solid; }
.lp-notice-error { background: #fdf0ef; border-color: var(--danger); color: var(--danger); }
.lp-notice-info { background: var(--forest-100); border-color: var(--forest-900); }

.lp-bar {
  display: flex; align-items: center; justify-content: space-between; gap: 1rem;
  padding: 0.5rem 1.25rem; background: var(--forest-900); color: #fff;
}
.lp-bar .lp-button-quiet { color: #fff; border-color: #fff; }
.lp-bar .lp-button-quiet:hover { background: var(--forest-800); }
.lp-bar :focus-visible { outline-color: var(--brass-300); }
.lp-bar { min-height: 3.75rem; }
.lp-bar .lp-button { padding: 0.375rem 1rem; }
.lp-brand { margin: 0; display: flex; flex-wrap: wrap; column-gap: 0.5rem; font-weight: 600; line-height: 1.3; overflow-wrap: break-word; }
.lp-brand span { color: var(--brass-300); }
.lp-bar-actions { display: flex; gap: 0.5rem; align-items: center; }
.lp-main { max-width: 90rem; margin: 0 auto; padding: 1.5rem 1.25rem 3rem; }

.lp-search { margin: 0 0 1rem; }
.lp-search label { display: block; margin-bottom: 0.375rem; }
.lp-search-launch { margin: 0 0 0.75rem; }
.lp-search-launch select { width: auto; max-width: 100%; min-width: 14rem; }
.lp-search-row { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.lp-search-row input { flex: 1 1 8rem; width: auto; min-width: 0; }
.lp-filters { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: 0.75rem; margin: 0 0 0.75rem; }
.lp-filter { min-width: 0; }
.lp-fold { margin: 0 0 0.75rem; }
.lp-fold-summary {
  display: inline-flex; align-items: center; gap: 0.5rem; min-height: 2.75rem; padding: 0.375rem 1rem;
  border: 2px solid var(--forest-900); border-radius: 999px; color: var(--forest-900); font-weight: 600;
  cursor: pointer; list-style: none;
}
.lp-fold-summary::-webkit-details-marker { display: none; }
.lp-fold-summary::before {
  content: ""; width: 0.5rem; height: 0.5rem; border: solid currentColor; border-width: 0 2px 2px 0;
  transform: rotate(-45deg);
}
.lp-fold[open] > .lp-fold-summary { margin-bottom: 0.75rem; }
.lp-fold[open] > .lp-fold-summary::before { transform: rotate(45deg); }
.lp-fold-summary:hover { background: var(--forest-100); }
.lp-fold-count { font-weight: 400; }
.lp-toolbar { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; gap: 0.75rem; margin: 0 0 1rem; }
.lp-summary { margin: 0; color: var(--ink-muted); }
.lp-downloads { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.lp-summary strong { color: var(--ink); }
.lp-empty { padding: 2rem 1rem; text-align: center; background: var(--cream-100); border-radius: 0.75rem; }

.lp-badge {
  display: inline-block; padding: 0.125rem 0.625rem; border-radius: 999px; font-size: 0.875rem; font-weight: 600;
  background: var(--cream-200); color: var(--ink); white-space: nowrap;
}
.lp-badge-sent { background: var(--forest-100); color: var(--forest-900); }
.lp-badge-retrying, .lp-badge-failed { background: #fdf0ef; color: var(--danger); }
.lp-badge-withdrawn { background: #fdf0ef; color: var(--danger); white-space: normal; }
.lp-badge-spam { background: var(--cream-200); color: var(--ink); }
.lp-card-note { margin: -0.25rem 0 0.5rem; color: var(--danger); font-weight: 600; }

.lp-cards { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.75rem; }
.lp-card { background: #fff; border: 1px solid var(--cream-200); border-radius: 0.75rem; padding: 1rem; }
.lp-card-title { margin: 0 0 0.5rem; font-size: 1.25rem; color: var(--forest-900); overflow-wrap: anywhere; }
.lp-pairs { margin: 0; display: grid; gap: 0.375rem; }
.lp-pairs > div { display: grid; grid-template-columns: 6.5rem 1fr; gap: 0.75rem; }
.lp-pairs dt { color: var(--ink-muted); font-size: 0.9375rem; }
.lp-pairs dd { margin: 0; overflow-wrap: anywhere; }
.lp-pairs a { display: inline-block; min-height: 1.5rem; }

.lp-badge-repeat { background: #e8eef8; color: #1d3a6b; white-space: normal; }
.lp-badge-realtor { background: #fdf0d5; color: #5c3d00; }

.lp-lead-page { max-width: 44rem; }
.lp-lead-page h1 { overflow-wrap: anywhere; }
.lp-section { margin: 0 0 1.75rem; }
.lp-section h2 { font-size: 1.25rem; margin: 0 0 0.75rem; color: var(--forest-900); }
.lp-follow { background: #fff; border: 1px solid var(--cream-200); border-radius: 0.75rem; padding: 1rem; display: grid; gap: 1rem; }
.lp-follow h2 { margin: 0; }
.lp-follow-form { display: grid; gap: 0.375rem; }
.lp-follow-row { display: flex; gap: 0.5rem; }
.lp-actions { display: flex; flex-wrap: wrap; gap: 0.5rem; }
.lp-follow-row select, .lp-follow-row input { flex: 1 1 auto; min-width: 0; }
.lp-button-wide { justify-self: start; margin-top: 0.25rem; }
.lp-others { margin: 0; padding-left: 1.25rem; display: grid; gap: 0.375rem; }
.lp-history { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.75rem; }
.lp-history-entry { border-left: 4px solid var(--forest-100); padding: 0.25rem 0 0.25rem 0.75rem; }
.lp-history-entry p { margin: 0; }
.lp-history-note { white-space: pre-line; overflow-wrap: anywhere; margin-top: 0.25rem !important; }
.lp-mail-preview { white-space: pre-wrap; overflow-wrap: anywhere; font: inherit; padding: 1rem; border: 1px solid #ddd; border-radius: 0.5rem; background: #fff; }
.lp-history-meta { color: var(--ink-muted); font-size: 0.875rem; margin-top: 0.25rem !important; overflow-wrap: anywhere; }

.lp-table-wrap { display: none; }
.lp-table { width: 100%; border-collapse: collapse; background: #fff; font-size: 0.875rem; }
.lp-table th, .lp-table td { padding: 0.625rem; text-align: left; vertical-align: top; border-bottom: 1px solid var(--cream-200); }
.lp-table thead th { position: sticky; top: 0; background: var(--forest-100); color: var(--forest-900); font-weight: 600; vertical-align: bottom; }
.lp-table tbody tr:hover { background: var(--cream-100); }
.lp-table td { overflow-wrap: break-word; }
.lp-table a[href^="tel:"] { white-space: nowrap; }
.lp-nowrap { white-space: nowrap; }

.lp-paging { display: flex; flex-wrap: wrap; gap: 0.75rem; margin-top: 1.5rem; }
.lp-paging a {
  display: inline-flex; align-items: center; min-height: 2.75rem; padding: 0.5rem 1.25rem; border: 2px solid var(--forest-900);
  border-radius: 999px; font-weight: 600; text-decoration: none;
}
.lp-paging a:hover { background: var(--forest-100); }

.lp-tabs { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0 0 1.25rem; border-bottom: 2px solid var(--cream-200); }
.lp-tab {
  display: inline-flex; align-items: center; min-height: 2.75rem; padding: 0.5rem 1rem; margin-bottom: -2px;
  font-weight: 600; text-decoration: none; color: var(--ink-muted); border-bottom: 4px solid transparent;
}
.lp-tab[aria-current="page"] { color: var(--forest-900); border-bottom-color: var(--forest-900); }
.lp-tab:hover { color: var(--forest-900); background: var(--forest-100); }
.lp-dashboard { max-width: 60rem; }
.lp-dashboard-launch select { flex: 0 1 20rem; width: auto; min-width: 0; }
.lp-dashboard .lp-summary { margin: 0 0 1.25rem; }
.lp-tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: 0.75rem; margin: 0 0 2rem; }
.lp-tile { background: #fff; border: 1px solid var(--cream-200); border-radius: 0.75rem; padding: 0.875rem 1rem; }
.lp-tile p { margin: 0; }
.lp-tile-heading { margin: 0 0 0.25rem; font: inherit; font-weight: 600; color: var(--ink-muted); font-size: 0.9375rem; }
.lp-tile-number { font-size: 1.75rem; font-weight: 700; color: var(--forest-900); line-height: 1.2; }
.lp-tile-number span { font-size: 1rem; font-weight: 600; }
.lp-tile-more { color: var(--ink-muted); font-size: 0.9375rem; }
.lp-figure { margin: 0 0 0.75rem; background: #fff; border: 1px solid var(--cream-200); border-radius: 0.75rem; padding: 1rem; }
.lp-chart { display: block; overflow: visible; }
.lp-legend { list-style: none; margin: 0.75rem 0 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.5rem 1.25rem; font-size: 0.9375rem; }
.lp-legend li { display: inline-flex; align-items: center; gap: 0.5rem; }
.lp-numbers { overflow-x: auto; border: 1px solid var(--cream-200); border-radius: 0.75rem; background: #fff; }
.lp-numbers-table { width: 100%; border-collapse: collapse; font-size: 0.875rem; }
.lp-numbers-table th:first-child, .lp-numbers-table td:first-child { padding-left: 0.75rem; }
.lp-numbers-table th:last-child, .lp-numbers-table td:last-child { padding-right: 0.75rem; }
.lp-numbers-table caption { text-align: left; font-weight: 600; padding: 0.625rem 0.75rem; }
.lp-numbers-table th, .lp-numbers-table td { padding: 0.375rem 0.3rem; text-align: right; border-top: 1px solid var(--cream-200); white-space: nowrap; }
.lp-numbers-table th[scope="row"], .lp-numbers-table thead th:first-child { text-align: left; font-weight: 400; }
.lp-numbers-table thead th { background: var(--forest-100); color: var(--forest-900); white-space: normal; vertical-align: bottom; }
@media (max-width: 29.99rem) { .lp-weekday { display: none; } }
.lp-note { color: var(--ink-muted); font-size: 0.9375rem; margin: 0.5rem 0 0; }

@media (min-width: 60rem) {
  h1 { font-size: 2rem; }
  .lp-signin { padding-top: 4rem; }
  .lp-panel { padding: 2rem; }
  .lp-cards { display: none; }
  /* A form with many fields is wider than the screen: the table scrolls sideways rather than hide its last columns. */
  .lp-table-wrap { display: block; border: 1px solid var(--cream-200); border-radius: 0.75rem; overflow-x: auto; }
  .lp-search-row input { flex: 0 1 28rem; }
  /* Room for every filter: the fold stays shut but shows its content, and its control goes (where the browser can). */
  @supports selector(::details-content) {
    .lp-fold-summary { display: none; }
    .lp-fold::details-content { content-visibility: visible; display: contents; }
  }
  .lp-numbers-table { font-size: 0.9375rem; }
  .lp-numbers-table th, .lp-numbers-table td { padding-left: 0.75rem; padding-right: 0.75rem; }
}
`

/**
 * The leads page's one script, served as /leads/leads.js: a select in a form marked data-apply sends its form as soon
 * as it is changed (a filter applies, a status is saved, in one tap). Every such form keeps its submit button, so
 * the page works the same without script.
 */
export const leadsScript = `document.addEventListener('change', (event) => {
  const field = event.target
  if (field instanceof HTMLSelectElement && field.form && field.form.hasAttribute('data-apply')) field.form.requestSubmit()
})
`
