import { startCompletion } from '@codemirror/autocomplete'
import { json, jsonLanguage } from '@codemirror/lang-json'
import { ensureSyntaxTree, syntaxTree } from '@codemirror/language'
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint'
import { redo, undo } from '@codemirror/commands'
import { EditorState, Prec, type Extension, type Text } from '@codemirror/state'
import { EditorView, hoverTooltip, keymap } from '@codemirror/view'
import { basicSetup } from 'codemirror'
import {
  getJsonPointers,
  jsonCompletion,
  jsonPointerForPosition,
  jsonSchemaHover,
  stateExtensions,
} from 'codemirror-json-schema'
import schema from '../../../../schema/page-config.schema.json'
import type { PagePart } from './preview-messages.ts'

/** A problem as the checker words it (`npm run validate`, the studio's server, `npm run edit`'s server). */
export type ProblemView = { line: number; column: number; where: string; message: string; fix?: string | undefined }

/** What the editor page hears from the code editor. */
export type CodeEditorEvents = {
  /** The text changed (typing, undo, paste, a drop…). */
  onChange: (text: string) => void
  /** Ctrl/Cmd+S. */
  onSave: () => void
  /** The cursor moved into another part of the page (a section, the header, the footer, or none). */
  onCursorPart: (part: PagePart | null) => void
  /** Picture files were dropped at `pos`. */
  onDropFiles: (files: File[], pos: number) => void
  /** The cursor moved: the JSON pointer of the value it is in ("/sections/2/heading"; "" at the top). */
  onCursorPointer?: (pointer: string) => void
}

/** The code editor as the editor page drives it. */
export type CodeEditor = {
  view: EditorView
  text: () => string
  /** Replaces the whole text as one step the person can undo. */
  replaceText: (text: string) => void
  /** Shows the checker's problems as red underlines, if they were found in exactly this document. */
  showProblems: (problems: ProblemView[], checkedDoc: Text) => void
  /** Puts the cursor at a line and column (1-based) and brings it into view. */
  goTo: (line: number, column: number) => void
  /** Puts the cursor in the JSON of a part of the page (and the focus, unless `focus` is false). */
  goToPart: (part: PagePart, focus?: boolean) => void
  insertAt: (pos: number, text: string) => void
  /**
   * Replaces the text with `text`, changing only the span that differs (the cursor and the rest stay put), undoable.
   */
  updateText: (text: string) => void
  /** Takes back the last change of the text (typed, or made by the form or the canvas); false when there is none. */
  undo: () => boolean
  /** Makes again the last change taken back; false when there is none. */
  redo: () => boolean
}

const pointerMode = 'json4' as const

/** Which part of the page a JSON pointer is in: "/sections/3/heading" → section 3. */
export function partOfPointer(pointer: string): PagePart | null {
  const section = /^\/sections\/(\d+)(\/|$)/.exec(pointer)
  if (section) return { kind: 'section', index: Number(section[1]) }
  if (/^\/header(\/|$)/.test(pointer)) return { kind: 'header' }
  if (/^\/footer(\/|$)/.test(pointer)) return { kind: 'footer' }
  return null
}

function samePart(a: PagePart | null, b: PagePart | null): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The offset of a 1-based line and column, kept inside the document. */
function offsetOf(doc: Text, line: number, column: number): number {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines))
  return Math.min(l.to, l.from + Math.max(0, column - 1))
}

const markedNodes = new Set(['String', 'Number', 'True', 'False', 'Null', 'PropertyName'])

/** A problem's underline: the whole name or value that starts at its spot, else the one character there. */
function diagnosticOf(state: EditorState, problem: ProblemView): Diagnostic {
  const from = offsetOf(state.doc, problem.line, problem.column)
  let node = syntaxTree(state).resolveInner(from, 1)
  while (!markedNodes.has(node.name) && node.parent && node.parent.from === from) node = node.parent
  const to = markedNodes.has(node.name) && node.from === from ? node.to : Math.min(state.doc.length, from + 1)
  return {
    from,
    to: Math.max(to, from),
    severity: 'error',
    message: problem.fix ? `${problem.message}\nWhat to do: ${problem.fix}` : problem.message,
    source: problem.where,
  }
}

/**
 * Ctrl+Space where a field name should start (an empty spot between the fields of an object) opens the list of the
 * fields that fit there. codemirror-json-schema completes names from a starting quote, so the quotes are written
 * first; with nothing chosen, Ctrl+Z takes them away again.
 */
function completeFieldName(view: EditorView): boolean {
  const { state } = view
  const range = state.selection.main
  if (!range.empty) return false
  // The parser works in slices of time and may not have reached the cursor yet (a slow phone or laptop, a long
  // file): it is asked to get there now, as far as a keypress may wait, before the place is judged.
  const tree = ensureSyntaxTree(state, range.head, 500) ?? syntaxTree(state)
  const node = tree.resolveInner(range.head, -1)
  const line = state.doc.lineAt(range.head)
  const before = state.sliceDoc(line.from, range.head)
  const after = state.sliceDoc(range.head, line.to)
  if (node.name !== 'Object' || !/^\s*$/.test(before) || !/^\s*("|}|$)/.test(after)) return false
  view.dispatch({ changes: { from: range.head, insert: '""' }, selection: { anchor: range.head + 1 } })
  startCompletion(view)
  return true
}

const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '15px', backgroundColor: '#fff' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, "Cascadia Mono", "Segoe UI Mono", Menlo, Consolas, monospace',
    lineHeight: '1.55',
  },
  '.cm-content': { paddingBottom: '40vh' },
  '.cm-gutters': { backgroundColor: '#f6f7f9', borderRight: '1px solid #e3e6ea', color: '#5b6470' },
  '.cm-activeLineGutter': { backgroundColor: '#e8eefc', color: '#1f2937' },
  '.cm-activeLine': { backgroundColor: '#f3f6fd' },
  '.cm-tooltip': { maxWidth: '460px', fontSize: '14px', lineHeight: '1.45' },
  '.cm-tooltip-hover': { padding: '8px 10px' },
  '.cm-diagnostic': { whiteSpace: 'pre-wrap' },
  '.cm-completionInfo': { maxWidth: '360px', whiteSpace: 'normal', padding: '6px 10px' },
})

/** The editor's extensions: JSON with the page's schema, the lint gutter, Ctrl+S, and the page's events. */
function configExtensions(lineSeparator: '\n' | '\r\n', events: CodeEditorEvents): Extension[] {
  let currentPart: PagePart | null = null
  return [
    // Highest: the completion's own Ctrl+Space binding is, and this one must come first.
    Prec.highest(
      keymap.of([
        { key: 'Mod-s', preventDefault: true, run: () => (events.onSave(), true) },
        { key: 'Ctrl-Space', run: completeFieldName },
      ]),
    ),
    basicSetup,
    // Saved exactly as it was: a file written with Windows line endings keeps them.
    EditorState.lineSeparator.of(lineSeparator),
    EditorView.lineWrapping,
    json(),
    jsonLanguage.data.of({ autocomplete: jsonCompletion() }),
    hoverTooltip(jsonSchemaHover()),
    stateExtensions(schema as unknown as Parameters<typeof stateExtensions>[0]),
    lintGutter(),
    theme,
    // An explicit tab stop: axe (and some screen readers) then know the scrolling text area can be reached by keyboard.
    EditorView.contentAttributes.of({ 'aria-label': 'page.config.json', tabindex: '0' }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) events.onChange(update.state.doc.toString())
      if (update.docChanged || update.selectionSet) {
        const pointer = jsonPointerForPosition(update.state, update.state.selection.main.head, 1, pointerMode)
        events.onCursorPointer?.(pointer)
        const part = partOfPointer(pointer)
        if (!samePart(part, currentPart)) {
          currentPart = part
          events.onCursorPart(part)
        }
      }
    }),
    fileDrops(events),
  ]
}

/** Picture files dropped on the text: handed to the page with the position they were dropped at. */
function fileDrops(events: CodeEditorEvents): Extension {
  return EditorView.domEventHandlers({
    dragover: (event) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault()
      return false
    },
    drop: (event, view) => {
      const files = [...(event.dataTransfer?.files ?? [])]
      if (!files.length) return false
      event.preventDefault()
      const pos = view.posAtCoords({ x: event.clientX, y: event.clientY }) ?? view.state.selection.main.head
      events.onDropFiles(files, pos)
      return true
    },
  })
}

/** The smallest change that turns `old` into `text`: the span that differs, with what replaces it. */
export function changeBetween(old: string, text: string): { from: number; to: number; insert: string } | null {
  if (old === text) return null
  let start = 0
  while (start < old.length && start < text.length && old[start] === text[start]) start++
  let end = 0
  while (
    end < old.length - start &&
    end < text.length - start &&
    old[old.length - 1 - end] === text[text.length - 1 - end]
  )
    end++
  return { from: start, to: old.length - end, insert: text.slice(start, text.length - end) }
}

/** What the page can do with the editor's view (see `CodeEditor`). */
function editorMethods(view: EditorView): Omit<CodeEditor, 'view'> {
  // Only the editor's own scroller moves: CodeMirror's scrollIntoView (and a plain focus) also scroll every scrolling
  // ancestor, the studio's window included, so a click in a preview would carry the page away from the preview.
  const goToOffset = (pos: number, focus = true) => {
    const scroller = view.scrollDOM
    if (scroller.scrollHeight <= scroller.clientHeight + 1) {
      // An editor as tall as its text (the window scrolls it): CodeMirror brings the line into the window's view.
      view.dispatch({ selection: { anchor: pos }, effects: EditorView.scrollIntoView(pos, { y: 'center' }) })
      if (focus) view.focus()
      return
    }
    // An editor that scrolls itself: only its own scroller moves, the line in its middle.
    view.dispatch({ selection: { anchor: pos } })
    const block = view.lineBlockAt(pos)
    scroller.scrollTop = Math.max(0, block.top - (scroller.clientHeight - block.height) / 2)
    if (!focus) return
    // CodeMirror's own focus: it keeps the window still and puts the browser's selection where the cursor is.
    view.focus()
    // Brought into the window's view only when none of it is in view (a narrow window, the editor far above).
    const box = scroller.getBoundingClientRect()
    if (box.bottom < 0 || box.top > window.innerHeight) scroller.scrollIntoView({ block: 'nearest' })
  }
  return {
    text: () => view.state.doc.toString(),
    replaceText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    showProblems: (problems, checkedDoc) => {
      if (view.state.doc !== checkedDoc) return
      view.dispatch(
        setDiagnostics(
          view.state,
          problems.map((p) => diagnosticOf(view.state, p)),
        ),
      )
    },
    goTo: (line, column) => goToOffset(offsetOf(view.state.doc, line, column)),
    goToPart: (part, focus = true) => {
      const pointer = part.kind === 'section' ? `/sections/${part.index}` : `/${part.kind}`
      const pointers = getJsonPointers(view.state, pointerMode)
      const target = pointers.get(part.kind === 'section' ? `${pointer}/type` : pointer)
      if (target) goToOffset(target.keyFrom, focus)
    },
    updateText: (text) => {
      const change = changeBetween(view.state.doc.toString(), text)
      if (change) view.dispatch({ changes: change, userEvent: 'input.studio' })
    },
    insertAt: (pos, text) => {
      view.dispatch({ changes: { from: pos, insert: text }, selection: { anchor: pos + text.length } })
      view.focus()
    },
    undo: () => undo(view),
    redo: () => redo(view),
  }
}

/**
 * CodeMirror 6 set up for a page config: JSON with the page's schema (completion, hover help), lint gutter, Ctrl+S.
 * `shadow`: inside a shadow root of `parent` (for pages under a strict CSP). Its history is the studio's one history
 * of edits: the canvas and the form change the text through it, so Undo and Redo take back any of them.
 */
export function createCodeEditor(
  parent: HTMLElement,
  doc: string,
  lineSeparator: '\n' | '\r\n',
  events: CodeEditorEvents,
  { shadow = false }: { shadow?: boolean } = {},
): CodeEditor {
  // In a shadow root CodeMirror styles itself through a constructed stylesheet, which a CSP without 'unsafe-inline'
  // allows; in the document it would add <style> elements, which such a CSP blocks (the studio's CSP is one).
  const root = shadow ? (parent.shadowRoot ?? parent.attachShadow({ mode: 'open' })) : undefined
  const view = new EditorView({
    parent: root ?? parent,
    ...(root ? { root } : {}),
    state: EditorState.create({ doc, extensions: configExtensions(lineSeparator, events) }),
  })
  return { view, ...editorMethods(view) }
}
