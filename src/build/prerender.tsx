import { prerender } from 'react-dom/static'
import type { ClientPageConfig } from '../../schema/page-config.ts'
import { App } from '../page/App.tsx'

/** Makes a launch's form validator module the one the form prerenders with (every launch shares this bundle). */
export async function setFormValidator(
  compiled: Parameters<typeof import('./ssr-form-validator.ts').setFormValidator>[0],
): Promise<void> {
  // Imported as the form imports it (dynamically), so the bundler keeps one module for both.
  ;(await import('./ssr-form-validator.ts')).setFormValidator(compiled)
}

/**
 * The static markup of a path for a config, after every lazy part (the form) has rendered, each in place.
 * (React outlines large Suspense boundaries into hidden parts revealed by inline scripts: the CSP forbids those.)
 * The form renders with the validator last given to `setFormValidator`.
 */
export async function renderPath(config: ClientPageConfig, pathname: string): Promise<string> {
  const { prelude } = await prerender(<App config={config} pathname={pathname} />, {
    progressiveChunkSize: Number.POSITIVE_INFINITY,
  })
  return new Response(prelude).text()
}
