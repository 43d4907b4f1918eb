import { useEffect } from 'react'

/** Names the browser tab `title` while the component is shown. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title
  }, [title])
}
