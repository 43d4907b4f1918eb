import './editor.css'
import { StrictMode, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'
import { createRoot } from 'react-dom/client'
import { createCodeEditor, type CodeEditor } from '../../studio/client/editing/code-editor.ts'
import type { FromPreview, PagePart, ToPreview } from '../../studio/client/editing/preview-messages.ts'
import { clearDraft, readDraft, writeDraft, type Draft } from './draft.ts'
import type { ProblemView, StateResponse } from './protocol.ts'
import { checkText, fetchState, fetchVersion, saveText, uploadImage } from './server-calls.ts'

const checkDelayMs = 250
const pollMs = 2000
const frameSizes = [
  { title: 'Phone preview', label: 'Phone', width: 375 },
  { title: 'Desktop preview', label: 'Desktop', width: 1280 },
] as const
const gap = 16

const clock = (at: number | Date) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
const problemCount = (n: number) => (n === 1 ? '1 problem' : `${n} problems`)

type Conflict = { version: string; text: string }

function Workspace({ initial }: { initial: StateResponse }) {
  const editorHost = useRef<HTMLDivElement>(null)
  const editor = useRef<CodeEditor | null>(null)
  const base = useRef({ version: initial.version, savedText: initial.text })
  const frames = useRef<(HTMLIFrameElement | null)[]>([])
  const pendingScroll = useRef(new Map<Window, number>())
  const cursorPart = useRef<PagePart | null>(null)
  const selectingFrom = useRef<MessageEventSource | null>(null)
  const busySaving = useRef(false)
  const dirtyRef = useRef(false)
  const conflictRef = useRef<Conflict | null>(null)
  const [problems, setProblems] = useState<ProblemView[]>(initial.problems)
  const [dirty, setDirty] = useState(false)
  const [status, setStatus] = useState('')
  const [conflict, setConflictState] = useState<Conflict | null>(null)
  const [draftOffer, setDraftOffer] = useState<Draft | null>(() => {
    const draft = readDraft(initial.path)
    return draft && draft.text !== initial.text ? draft : null
  })
  const previews = useRef<HTMLDivElement>(null)
  const [frameBox, setFrameBox] = useState({ scale: 0.45, height: 600 })

  const setConflict = (value: Conflict | null) => {
    conflictRef.current = value
    setConflictState(value)
  }

  const post = useCallback((message: ToPreview, only?: Window) => {
    for (const frame of frames.current) {
      const target = frame?.contentWindow
      if (target && (!only || only === target)) target.postMessage(message, window.location.origin)
    }
  }, [])

  const save = useCallback(async () => {
    const code = editor.current
    if (!code || busySaving.current) return
    busySaving.current = true
    const text = code.text()
    setStatus('Saving…')
    try {
      const result = await saveText(text, base.current.version)
      if (!result.saved) {
        setConflict({ version: result.version, text: result.text })
        setStatus('Not saved: page.config.json was changed by another program. Choose what to keep below.')
        return
      }
      base.current = { version: result.version, savedText: text }
      const stillDirty = code.text() !== text
      dirtyRef.current = stillDirty
      setDirty(stillDirty)
      if (!stillDirty) clearDraft(initial.path)
      setStatus(
        result.problems.length
          ? `Saved at ${clock(new Date())}, with ${problemCount(result.problems.length)}: the site will not build until these are fixed.`
          : `Saved at ${clock(new Date())}.`,
      )
    } catch (error) {
      setStatus(`Not saved: ${(error as Error).message} Your text is still here; try Save again.`)
    } finally {
      busySaving.current = false
    }
  }, [initial.path])

  // The code editor: made once; its events reach the latest state through refs.
  useEffect(() => {
    const host = editorHost.current
    if (!host) return
    let checkTimer: number | undefined
    let draftTimer: number | undefined
    let checkSeq = 0
    const runCheck = async () => {
      const code = editor.current
      if (!code) return
      const seq = ++checkSeq
      const doc = code.view.state.doc
      try {
        const result = await checkText(doc.toString())
        if (seq !== checkSeq) return
        setProblems(result.problems)
        code.showProblems(result.problems, doc)
        if (result.preview?.reload) {
          for (const frame of frames.current) {
            const win = frame?.contentWindow
            if (!win) continue
            pendingScroll.current.set(win, win.scrollY)
            win.location.reload()
          }
        } else if (result.preview) {
          post({ type: 'config', config: result.preview.config })
        }
      } catch (error) {
        if (seq === checkSeq) setStatus(`The text could not be checked: ${(error as Error).message}`)
      }
    }
    const code = createCodeEditor(host, initial.text, initial.lineSeparator, {
      onChange: (text) => {
        const isDirty = text !== base.current.savedText
        dirtyRef.current = isDirty
        setDirty(isDirty)
        window.clearTimeout(checkTimer)
        checkTimer = window.setTimeout(() => void runCheck(), checkDelayMs)
        window.clearTimeout(draftTimer)
        draftTimer = window.setTimeout(() => {
          if (isDirty) writeDraft(initial.path, { text, baseVersion: base.current.version, at: Date.now() })
          else clearDraft(initial.path)
        }, 200)
      },
      onSave: () => void save(),
      onCursorPart: (part) => {
        cursorPart.current = part
        for (const frame of frames.current) {
          const win = frame?.contentWindow
          if (win) post({ type: 'show', part, scroll: win !== selectingFrom.current }, win)
        }
      },
      onDropFiles: (files, pos) => {
        void (async () => {
          for (const file of files) {
            setStatus(`Adding ${file.name}…`)
            try {
              const image = await uploadImage(file)
              code.insertAt(pos, `{ "src": "${image.src}", "alt": "", "width": ${image.width}, "height": ${image.height} }`)
              setStatus(`Added ${image.src} (${image.width} × ${image.height} pixels). Write what the picture shows in "alt".`)
            } catch (error) {
              setStatus((error as Error).message)
            }
          }
        })()
      },
    })
    editor.current = code
    code.showProblems(initial.problems, code.view.state.doc)
    const flushDraft = () => {
      if (dirtyRef.current) writeDraft(initial.path, { text: code.text(), baseVersion: base.current.version, at: Date.now() })
    }
    window.addEventListener('pagehide', flushDraft)
    return () => {
      window.removeEventListener('pagehide', flushDraft)
      window.clearTimeout(checkTimer)
      window.clearTimeout(draftTimer)
      code.view.destroy()
      editor.current = null
    }
  }, [initial, post, save])

  // Messages from the preview frames: a click on a part of the page, a frame (re)loaded.
  useEffect(() => {
    const onMessage = (event: MessageEvent<FromPreview>) => {
      if (event.origin !== window.location.origin || !frames.current.some((f) => f?.contentWindow === event.source)) return
      const source = event.source as Window
      if (event.data.type === 'select') {
        selectingFrom.current = source
        editor.current?.goToPart(event.data.part)
        selectingFrom.current = null
      } else if (event.data.type === 'ready') {
        const y = pendingScroll.current.get(source)
        pendingScroll.current.delete(source)
        post({ type: 'show', part: cursorPart.current, scroll: y === undefined && cursorPart.current !== null }, source)
        if (y !== undefined) post({ type: 'scroll-to', y }, source)
      }
    }
    window.addEventListener('message', onMessage)
    return () => window.removeEventListener('message', onMessage)
  }, [post])

  // Closing the tab with unsaved work asks first (the draft is kept all the same).
  useEffect(() => {
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      if (!dirtyRef.current) return
      event.preventDefault()
      event.returnValue = ''
    }
    window.addEventListener('beforeunload', onBeforeUnload)
    return () => window.removeEventListener('beforeunload', onBeforeUnload)
  }, [])

  // Another program changing the file is noticed: taken in when nothing here is unsaved, offered otherwise.
  useEffect(() => {
    const timer = window.setInterval(() => {
      if (busySaving.current) return
      void (async () => {
        try {
          const version = await fetchVersion()
          if (!version || version === base.current.version || version === conflictRef.current?.version || busySaving.current) return
          const state = await fetchState()
          if (!dirtyRef.current) {
            base.current = { version: state.version, savedText: state.text }
            editor.current?.replaceText(state.text)
            setStatus(`page.config.json was changed by another program at ${clock(new Date())}: this is its new text.`)
          } else {
            setConflict({ version: state.version, text: state.text })
          }
        } catch {
          // The editor server is stopped or busy: try again at the next tick.
        }
      })()
    }, pollMs)
    return () => window.clearInterval(timer)
  }, [])

  // Both frames at the same scale, side by side, filling the preview pane.
  useLayoutEffect(() => {
    const pane = previews.current
    if (!pane) return
    const fit = () => {
      const style = getComputedStyle(pane)
      const width = pane.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - gap * (frameSizes.length - 1) - 4
      const scale = Math.min(1, width / frameSizes.reduce((sum, f) => sum + f.width, 0))
      const height = pane.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom) - 26
      setFrameBox({ scale, height: Math.max(200, height) })
    }
    fit()
    const observer = new ResizeObserver(fit)
    observer.observe(pane)
    return () => observer.disconnect()
  }, [])

  const loadTheirs = () => {
    if (!conflict) return
    base.current = { version: conflict.version, savedText: conflict.text }
    editor.current?.replaceText(conflict.text)
    setConflict(null)
    setStatus('Showing the file as the other program left it. Ctrl+Z brings your text back.')
  }
  const keepMine = () => {
    if (!conflict) return
    base.current = { ...base.current, version: conflict.version }
    setConflict(null)
    void save()
  }
  const restoreDraft = () => {
    if (!draftOffer) return
    // Saving compares with the file the draft was based on: if it changed since, Save says so instead of overwriting.
    base.current = { ...base.current, version: draftOffer.baseVersion }
    editor.current?.replaceText(draftOffer.text)
    setDraftOffer(null)
    setStatus('Your unsaved changes are back. Save when they are ready.')
  }
  const discardDraft = () => {
    clearDraft(initial.path)
    setDraftOffer(null)
  }

  return (
    <div className="app">
      <header className="bar">
        <h1>
          <span className="launch">{initial.launch}</span>
          <span className="file">{initial.file}</span>
          <span className="state">{dirty ? 'Unsaved changes' : 'Saved'}</span>
        </h1>
        <p className="status" role="status">
          {status}
        </p>
        {!status && (
          <p className="hint">Ctrl+Space suggests fields · hover a name for help · drop a picture on the text to add it · click the page to find its text</p>
        )}
        <button type="button" className="save" onClick={() => void save()} aria-keyshortcuts="Control+S Meta+S">
          Save
        </button>
      </header>
      {draftOffer && (
        <div className="banner" role="alert">
          <p>You have changes from {clock(draftOffer.at)} that were not saved.</p>
          <button type="button" onClick={restoreDraft}>
            Restore them
          </button>
          <button type="button" onClick={discardDraft}>
            Discard them
          </button>
        </div>
      )}
      {conflict && (
        <div className="banner warn" role="alert">
          <p>page.config.json was changed by another program while you were editing. Which text should stay?</p>
          <button type="button" onClick={loadTheirs}>
            Load the changed file
          </button>
          <button type="button" onClick={keepMine}>
            Keep mine and save it
          </button>
        </div>
      )}
      <main className="panes">
        <section className="source" aria-label="Text">
          <div className="code" ref={editorHost} />
          <section className="problems" aria-labelledby="problems-heading">
            <h2 id="problems-heading">
              {problems.length ? `${problemCount(problems.length)}: the last good page stays in the preview` : 'No problems: the page will build'}
            </h2>
            <ul aria-label="Problems">
              {problems.map((p, i) => (
                <li key={`${p.line}:${p.column}:${i}`}>
                  <button type="button" onClick={() => editor.current?.goTo(p.line, p.column)}>
                    <span className="where">
                      Line {p.line}, column {p.column}
                    </span>
                    <span className="message">{p.message}</span>
                    <span className="fix">What to do: {p.fix}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        </section>
        <section className="previews" aria-label="Preview" ref={previews}>
          {frameSizes.map((size, i) => (
            <figure key={size.title} className="frame" style={{ width: size.width * frameBox.scale }}>
              <figcaption>
                {size.label} · {size.width} px
              </figcaption>
              <div className="frame-box" style={{ height: frameBox.height }}>
                <iframe
                  ref={(el) => {
                    frames.current[i] = el
                  }}
                  title={size.title}
                  src="/preview/"
                  style={{ width: size.width, height: frameBox.height / frameBox.scale, transform: `scale(${frameBox.scale})` }}
                />
              </div>
            </figure>
          ))}
        </section>
      </main>
    </div>
  )
}

function EditorApp() {
  const [initial, setInitial] = useState<StateResponse>()
  const [error, setError] = useState('')
  useEffect(() => {
    fetchState().then(setInitial, (e: unknown) => setError((e as Error).message))
  }, [])
  if (error) return <p className="fatal">{error}</p>
  if (!initial) return <p className="loading">Opening page.config.json…</p>
  return <Workspace initial={initial} />
}

const root = document.getElementById('editor-root')
if (!root) throw new Error('The editor page has no #editor-root element')
createRoot(root).render(
  <StrictMode>
    <EditorApp />
  </StrictMode>,
)
