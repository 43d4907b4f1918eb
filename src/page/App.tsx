import type { ClientPageConfig } from '../../schema/page-config.ts'
import { ImageVariantsContext } from '../ui/image-variants-context.ts'
import { NotFound } from './NotFound.tsx'
import { Page } from './Page.tsx'

/** The one route: "/" is the landing page; every other path is the not-found page. */
export function App({ config, pathname }: { config: ClientPageConfig; pathname: string }) {
  return (
    <ImageVariantsContext value={config.imageVariants ?? {}}>
      {pathname === '/' || pathname === '/index.html' ? <Page config={config} /> : <NotFound {...config.notFound} />}
    </ImageVariantsContext>
  )
}
