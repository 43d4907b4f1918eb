import { prerender } from 'react-dom/static'
import config from 'virtual:page-config'
import { App } from './page/App.tsx'
import type { ImageManifest } from '../schema/page-config.ts'
import { toClientConfig } from './build/client-config.ts'

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text()
}

/**
 * The static markup of a path, after every lazy part (the form) has rendered, each in place. (React outlines
 * large Suspense boundaries into hidden parts revealed by inline scripts: the CSP forbids those.)
 */
export async function renderPath(pathname: string, imageVariants: ImageManifest = {}): Promise<string> {
  const { prelude } = await prerender(<App config={toClientConfig(config, imageVariants)} pathname={pathname} />, {
    progressiveChunkSize: Number.POSITIVE_INFINITY,
  })
  return readAll(prelude)
}
