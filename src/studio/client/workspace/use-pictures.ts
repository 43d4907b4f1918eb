import { useCallback, type RefObject } from 'react'
import { studioApi } from '../api.ts'
import type { CodeEditor } from '../editing/code-editor.ts'

/** Uploads picture files into the launch's images and writes each one's JSON at `pos` (a drop, or the cursor). */
export function usePictures(slug: string, editorRef: RefObject<CodeEditor | null>, setStatus: (s: string) => void) {
  return useCallback(
    async (files: File[], pos: number) => {
      for (const file of files) {
        setStatus(`Adding ${file.name}…`)
        try {
          const image = await studioApi.uploadImage(slug, file)
          editorRef.current?.insertAt(
            pos,
            `{ "src": ${JSON.stringify(image.src)}, "alt": "", "width": ${image.width}, "height": ${image.height} }`,
          )
          setStatus(
            `Added ${image.src} (${image.width} × ${image.height} pixels). Write what the picture shows in "alt".`,
          )
        } catch (e) {
          setStatus((e as Error).message)
        }
      }
    },
    [editorRef, setStatus, slug],
  )
}
