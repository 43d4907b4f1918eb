import { prerender } from 'react-dom/static'
import type { ClientPageConfig } from '../../schema/page-config.ts'
import { App } from '../page/App.tsx'

/**
 * The static markup of a path for a config, after every lazy part (the form) has rendered, each in place.
 * (React outlines large Suspense boundaries into hidden parts revealed by inline scripts: the CSP forbids those.)
 */
export async function renderPath(config: ClientPageConfig, pathname: string): Promise<string> {
  const { prelude } = await prerender(<App config={config} pathname={pathname} />, {
    progressiveChunkSize: Number.POSITIVE_INFINITY,
  })
  return new Response(prelude).text()
}
