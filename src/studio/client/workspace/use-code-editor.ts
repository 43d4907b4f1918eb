import { useEffect, useRef, useState, type RefObject } from 'react'
import type { StudioProblem } from '../../protocol.ts'
import { createCodeEditor, type CodeEditor } from '../editing/code-editor.ts'
import type { PagePart } from '../editing/preview-messages.ts'

/** How long typing pauses before the draft is saved and the previews follow. */
export const draftDelayMs = 600

/** What the code editor hook needs: the first text and problems, and what to call on its events. */
export type CodeEditorDeps = {
  editorRef: RefObject<CodeEditor | null>
  initialText: string
  initialProblems: StudioProblem[]
  /** The text paused changing for `draftDelayMs` (or Ctrl+S: `button`). */
  onSettled: (reason: 'typing' | 'button') => void
  onCursorPart: (part: PagePart | null) => void
  onDropFiles: (files: File[], pos: number) => void
}

/**
 * Makes the CodeMirror editor once in the returned host element; its events reach the latest state through stable
 * callbacks. Returns the host, the text as typed and the JSON pointer of the cursor.
 */
export function useCodeEditor({
  editorRef,
  initialText,
  initialProblems,
  onSettled,
  onCursorPart,
  onDropFiles,
}: CodeEditorDeps) {
  const hostRef = useRef<HTMLDivElement>(null)
  const first = useRef({ text: initialText, problems: initialProblems })
  const [text, setText] = useState(initialText)
  const [pointer, setPointer] = useState('')
  useEffect(() => {
    const parent = hostRef.current
    if (!parent) return
    let timer: number | undefined
    const start = first.current
    const code = createCodeEditor(
      parent,
      start.text,
      start.text.includes('\r\n') ? '\r\n' : '\n',
      {
        onChange: (next) => {
          setText(next)
          window.clearTimeout(timer)
          timer = window.setTimeout(() => onSettled('typing'), draftDelayMs)
        },
        onSave: () => onSettled('button'),
        onCursorPointer: setPointer,
        onCursorPart,
        onDropFiles,
      },
      { shadow: true },
    )
    editorRef.current = code
    code.showProblems(start.problems, code.view.state.doc)
    return () => {
      window.clearTimeout(timer)
      code.view.destroy()
      editorRef.current = null
    }
  }, [editorRef, onCursorPart, onDropFiles, onSettled])
  return { hostRef, text, pointer }
}
