import { useEffect } from 'react'
import type { NotFoundProps } from '../../schema/page-config.ts'

/** The page for any address but "/": logs the attempted path as an error, and links home. */
export function NotFound({ heading, text, linkLabel }: NotFoundProps) {
  useEffect(() => {
    console.error('404 Error: User attempted to access non-existent route:', window.location.pathname)
  }, [])
  return (
    <main className="flex min-h-screen items-center justify-center bg-cream-100 px-5">
      <div className="text-center">
        <h1 className="font-serif text-7xl font-semibold text-forest-900">{heading}</h1>
        <p className="mt-4 text-xl text-ink-muted">{text}</p>
        <a href="/" className="btn-primary mt-8">
          {linkLabel}
        </a>
      </div>
    </main>
  )
}
