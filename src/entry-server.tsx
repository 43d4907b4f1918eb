import { prerender } from 'react-dom/static'
import config from 'virtual:page-config'
import { App } from './page/App.tsx'
import { toClientConfig } from './page/client-config.ts'

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text()
}

/** The static markup of a path, after every lazy part (the form) has rendered. */
export async function renderPath(pathname: string): Promise<string> {
  const { prelude } = await prerender(<App config={toClientConfig(config)} pathname={pathname} />)
  return readAll(prelude)
}
