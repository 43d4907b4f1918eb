import { lazy, Suspense, type ComponentProps } from 'react'

// The real renderer, fetched only when a form field's description or help is shown as Markdown.
const RealMarkdown = lazy(() => import('markdown-to-jsx/react').then((module) => ({ default: module.Markdown })))

/**
 * Stands in for markdown-to-jsx inside react-jsonschema-form (vite.config.ts points RJSF's import here): RJSF only
 * renders Markdown when the uiSchema asks for it (`ui:enableMarkdownInDescription` / `…InHelp`), yet its static
 * import put the ~30 KiB parser into the form's chunk. Until it arrives, the text shows as written.
 */
export function Markdown(props: ComponentProps<typeof RealMarkdown>) {
  return (
    <Suspense fallback={<span>{String(props.children ?? '')}</span>}>
      <RealMarkdown {...props} />
    </Suspense>
  )
}
