type DataLayerWindow = Window & { dataLayer?: unknown[] }

/** The page's dataLayer (Google Tag Manager's queue), created when missing. */
export function dataLayer(): unknown[] {
  const w = window as DataLayerWindow
  w.dataLayer = w.dataLayer ?? []
  return w.dataLayer
}

/**
 * Loads the configured Google Tag Manager container (after the page is interactive, so it never delays it).
 * Only called when the config names a container: otherwise nothing is loaded and nothing is tracked.
 */
export function loadTagManager(containerId: string): void {
  if (document.querySelector('script[data-tag-manager]')) return
  dataLayer().push({ 'gtm.start': Date.now(), event: 'gtm.js' })
  const script = document.createElement('script')
  script.async = true
  script.src = `https://www.googletagmanager.com/gtm.js?id=${encodeURIComponent(containerId)}`
  script.dataset.tagManager = containerId
  document.head.append(script)
}
