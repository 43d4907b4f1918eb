import { createElement } from 'react'

/** A notice after sending: its kind and the config's words. */
export type Notice = { kind: 'success' | 'error'; title: string; text: string }

let toasts: Promise<typeof import('react-toastify/unstyled')> | undefined

/** react-toastify, loaded once; the container (Toasts.tsx) and the notices share this instance. */
export function loadToastLibrary() {
  toasts ??= import('react-toastify/unstyled')
  return toasts
}

/** Shows a notice as a toast; the container's live region announces it to screen readers. */
export async function showNotice(notice: Notice): Promise<void> {
  const { toast } = await loadToastLibrary()
  const content = createElement(
    'div',
    null,
    createElement('p', { className: 'font-semibold' }, notice.title),
    createElement('p', { className: 'mt-0.5 text-sm' }, notice.text),
  )
  if (notice.kind === 'success') toast.success(content)
  else toast.error(content, { autoClose: 8000 })
}
