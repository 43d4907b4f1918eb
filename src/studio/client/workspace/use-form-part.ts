import { useMemo, type RefObject } from 'react'
import type { CodeEditor } from '../editing/code-editor.ts'
import { applyPartEdit, partAt, partValue } from '../editing/form-parts.ts'

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * The config as typed (undefined while it is not JSON), the part the form view shows for the JSON pointer `pointer`,
 * and the change of the text a change in the form makes.
 */
export function useFormPart(
  text: string,
  pointer: string,
  editorRef: RefObject<CodeEditor | null>,
  setStatus: (status: string) => void,
) {
  const config = useMemo(() => parseOrUndefined(text), [text])
  const part = useMemo(() => (config === undefined ? undefined : partAt(config, pointer)), [config, pointer])
  const onFormChange = (value: unknown) => {
    const code = editorRef.current
    if (!code || !part || config === undefined) return
    try {
      code.updateText(applyPartEdit(code.text(), part.path, partValue(config, part), value))
    } catch (e) {
      setStatus(`The form could not change the text: ${(e as Error).message}`)
    }
  }
  return { config, part, onFormChange }
}
