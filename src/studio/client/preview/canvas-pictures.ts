import type { FromPreview } from '../editing/preview-messages.ts'
import { partAt } from './frame-bridge.ts'
import { pictureTargetOf } from './text-targets.ts'

/** Lets a picture file dropped on a picture of the page replace it: the editing page uploads it and asks its alt. */
export function acceptPictureDrops(root: HTMLElement, config: () => unknown, post: (m: FromPreview) => void): void {
  const doc = root.ownerDocument
  const targetOf = (event: DragEvent) => {
    const img = event.target instanceof Element ? event.target.closest('picture, img') : null
    const image = img?.matches('img') ? (img as HTMLImageElement) : img?.querySelector('img')
    const part = img && partAt(root, img)
    const shown = config()
    if (!image || !part || !shown) return undefined
    return pictureTargetOf(shown, part, image.currentSrc || image.src)
  }
  doc.addEventListener('dragover', (event) => {
    if (event.dataTransfer?.types.includes('Files') && targetOf(event)) event.preventDefault()
  })
  doc.addEventListener('drop', (event) => {
    const file = event.dataTransfer?.files[0]
    const path = file && targetOf(event)
    if (!file || !path) return
    event.preventDefault()
    post({ type: 'picture', path, file })
  })
}
