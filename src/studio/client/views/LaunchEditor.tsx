import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import type {
  LaunchDetail,
  PreviewLinkResponse,
  PreviewPhases,
  PreviewResponse,
  StudioProblem,
} from '../../protocol.ts'
import { launchImagesBase, StudioRequestError, studioApi } from '../api.ts'
import { createCodeEditor, type CodeEditor } from '../editing/code-editor.ts'
import { applyPartEdit, partAt, partValue } from '../editing/form-parts.ts'
import { replaceValue } from '../../../config/json-edit.ts'
import { FormView } from '../editing/FormView.tsx'
import type { FromPreview, PagePart, ToPreview } from '../editing/preview-messages.ts'
import { countProblems, formatMoment } from '../format.ts'
import { withStudioImages } from '../preview-config.ts'
import { History } from './History.tsx'
import { PhasePicker } from './PhasePicker.tsx'
import { CopyField } from './People.tsx'
import { PreviewFrames } from './PreviewFrames.tsx'
import { ProblemList } from './ProblemList.tsx'

/** How long typing pauses before the draft is saved and the previews follow. */
export const draftDelayMs = 600

type Published = { version: number; ms: number; url: string; warning?: string | undefined }

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/**
 * One launch's editor: the JSON, its problems, the form view of the part under the cursor, the previews, history.
 * `local` (`npm run edit`): publishing is "Save to file" (the file is written, nothing is built), no preview links.
 */
export function LaunchEditor({ slug, canEdit, local = false }: { slug: string; canEdit: boolean; local?: boolean }) {
  const [detail, setDetail] = useState<LaunchDetail>()
  const [error, setError] = useState('')
  const load = useCallback(
    () => studioApi.launch(slug).then(setDetail, (e: unknown) => setError((e as Error).message)),
    [slug],
  )
  useEffect(() => void load(), [load])
  if (error)
    return (
      <p className="error page" role="alert">
        {error}
      </p>
    )
  if (!detail) return <p className="loading page">Opening the launch…</p>
  return <Workspace detail={detail} canEdit={canEdit} local={local} />
}

function Workspace({ detail, canEdit, local }: { detail: LaunchDetail; canEdit: boolean; local: boolean }) {
  const { slug } = detail
  const words = local
    ? {
        publish: 'Save to file',
        publishing: 'Saving to the file…',
        published: 'Saved to the file as version',
        not: 'Not saved to the file',
      }
    : { publish: 'Publish', publishing: 'Publishing…', published: 'Published as version', not: 'Not published' }
  useEffect(() => {
    document.title = `${detail.siteName} — ${local ? 'page editor' : 'Studio'}`
  }, [detail.siteName, local])
  const editorHost = useRef<HTMLDivElement>(null)
  const editor = useRef<CodeEditor | null>(null)
  const frames = useRef<(HTMLIFrameElement | null)[]>([])
  const preview = useRef<{ message: ToPreview; validatorUrl: string } | null>(null)
  const cursorPart = useRef<PagePart | null>(null)
  const selectingFrom = useRef<MessageEventSource | null>(null)
  const savedText = useRef(detail.draftText ?? detail.liveText)
  const saving = useRef<Promise<boolean> | null>(null)
  const [text, setText] = useState(savedText.current)
  const [pointer, setPointer] = useState('')
  const [problems, setProblems] = useState<StudioProblem[]>(detail.problems)
  const [status, setStatus] = useState(
    detail.draft
      ? `Draft by ${detail.draft.by}, saved ${formatMoment(detail.draft.updatedAt)}.`
      : local
        ? 'No draft: this is the file as it is.'
        : 'No draft: this is the live version.',
  )
  const [published, setPublished] = useState<Published>()
  const [blocking, setBlocking] = useState<StudioProblem[]>([])
  const [link, setLink] = useState<PreviewLinkResponse>()
  // The phase the previews show: the one chosen above them (a ref, so the callbacks stay the same), else the live one.
  const askedPhase = useRef<string | undefined>(undefined)
  const [phases, setPhases] = useState<PreviewPhases>()
  const [historyKey, setHistoryKey] = useState(0)
  const publishDialog = useRef<HTMLDialogElement>(null)
  const pictureInput = useRef<HTMLInputElement>(null)

  /** Uploads picture files into the launch's images and writes each one's JSON at `pos` (a drop, or the cursor). */
  const addPictures = useCallback(
    async (files: File[], pos: number) => {
      for (const file of files) {
        setStatus(`Adding ${file.name}…`)
        try {
          const image = await studioApi.uploadImage(slug, file)
          editor.current?.insertAt(
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
    [slug],
  )
  const [message, setMessage] = useState('')

  const post = useCallback((message: ToPreview, only?: Window) => {
    for (const frame of frames.current) {
      const target = frame?.contentWindow
      if (target && (!only || only === target)) target.postMessage(message, window.location.origin)
    }
  }, [])

  const showPreview = useCallback(
    (answer: PreviewResponse) => {
      // Neither the draft nor the live text is without problems: the frames keep what they show.
      if (!answer.config) return
      setPhases(answer.phases)
      const message: ToPreview = {
        type: 'config',
        config: withStudioImages(answer.config, launchImagesBase(slug)),
        validatorUrl: answer.validatorUrl,
      }
      preview.current = { message, validatorUrl: answer.validatorUrl }
      post(message)
    },
    [post, slug],
  )

  const refreshPreview = useCallback(
    () => studioApi.preview(slug, askedPhase.current).then(showPreview, () => {}),
    [slug, showPreview],
  )

  /** Saves the text as this launch's draft (when it changed), then shows its problems and its page; false when it could not. */
  const saveDraft = useCallback(
    async (reason: 'typing' | 'button'): Promise<boolean> => {
      const code = editor.current
      if (!code || !canEdit) return false
      await saving.current
      const text = code.text()
      if (text === savedText.current && reason === 'typing') return true
      const run = (async () => {
        try {
          const doc = code.view.state.doc
          const result = await studioApi.saveDraft(slug, text)
          savedText.current = text
          setProblems(result.problems)
          code.showProblems(result.problems, doc)
          setStatus(
            result.problems.length
              ? `Draft saved ${formatMoment(result.savedAt)}, with ${countProblems(result.problems.length)}.`
              : `Draft saved ${formatMoment(result.savedAt)}.`,
          )
          await refreshPreview()
          return true
        } catch (e) {
          setStatus(`The draft was not saved: ${(e as Error).message} Your text is still here.`)
          return false
        }
      })()
      saving.current = run
      return run
    },
    [canEdit, refreshPreview, slug],
  )

  // The code editor: made once; its events reach the latest state through refs and stable callbacks.
  useEffect(() => {
    const host = editorHost.current
    if (!host) return
    let timer: number | undefined
    const code = createCodeEditor(
      host,
      savedText.current,
      savedText.current.includes('\r\n') ? '\r\n' : '\n',
      {
        onChange: (next) => {
          setText(next)
          window.clearTimeout(timer)
          timer = window.setTimeout(() => void saveDraft('typing'), draftDelayMs)
        },
        onSave: () => void saveDraft('button'),
        onCursorPointer: setPointer,
        onCursorPart: (part) => {
          cursorPart.current = part
          for (const frame of frames.current) {
            const win = frame?.contentWindow
            if (win) post({ type: 'show', part, scroll: win !== selectingFrom.current }, win)
          }
        },
        onDropFiles: (files, pos) => void addPictures(files, pos),
      },
      { shadow: true },
    )
    editor.current = code
    code.showProblems(detail.problems, code.view.state.doc)
    return () => {
      window.clearTimeout(timer)
      code.view.destroy()
      editor.current = null
    }
  }, [addPictures, canEdit, detail.problems, post, saveDraft, slug])

  // Messages from the preview frames: a click on a part of the page, a frame (re)loaded.
  useEffect(() => {
    const onMessage = (event: MessageEvent<FromPreview>) => {
      if (event.origin !== window.location.origin || !frames.current.some((f) => f?.contentWindow === event.source))
        return
      const source = event.source as Window
      if (event.data.type === 'select') {
        selectingFrom.current = source
        editor.current?.goToPart(event.data.part)
        selectingFrom.current = null
      } else if (event.data.type === 'ready') {
        if (preview.current) post(preview.current.message, source)
        post({ type: 'show', part: cursorPart.current, scroll: cursorPart.current !== null }, source)
      }
    }
    window.addEventListener('message', onMessage)
    void refreshPreview()
    return () => window.removeEventListener('message', onMessage)
  }, [post, refreshPreview])

  const config = useMemo(() => parseOrUndefined(text), [text])
  const part = useMemo(() => (config === undefined ? undefined : partAt(config, pointer)), [config, pointer])
  const onFormChange = (value: unknown) => {
    const code = editor.current
    if (!code || !part || config === undefined) return
    try {
      code.updateText(applyPartEdit(code.text(), part.path, partValue(config, part), value))
    } catch (e) {
      setStatus(`The form could not change the text: ${(e as Error).message}`)
    }
  }

  const openPublish = () => {
    setBlocking([])
    publishDialog.current?.showModal()
  }
  const publish = async () => {
    const code = editor.current
    publishDialog.current?.close()
    if (!code) return
    setStatus(words.publishing)
    setPublished(undefined)
    try {
      await saveDraft('typing')
      const result = await studioApi.publish(slug, { text: code.text(), message: message.trim() || undefined })
      savedText.current = code.text()
      setPublished({ ...result, url: detail.localUrl })
      setStatus(`${words.published} ${result.version}.`)
      setMessage('')
      setHistoryKey((k) => k + 1)
    } catch (e) {
      if (e instanceof StudioRequestError && e.problems.length) {
        setBlocking(e.problems)
        setProblems(e.problems)
        code.showProblems(e.problems, code.view.state.doc)
      }
      setStatus(`${words.not}: ${(e as Error).message}`)
    }
  }
  const makeLink = async () => {
    try {
      await saveDraft('typing')
      setLink(await studioApi.previewLink(slug, askedPhase.current))
    } catch (e) {
      setStatus(`No preview link: ${(e as Error).message}`)
    }
  }
  const showPhase = (name: string) => {
    askedPhase.current = name
    setLink(undefined)
    void refreshPreview()
  }
  const makeCurrent = async (name: string) => {
    const code = editor.current
    if (!code) return
    try {
      code.updateText(replaceValue(code.text(), ['phases', 'current'], JSON.stringify(name)))
    } catch (e) {
      setStatus(`The phase could not be changed in the text: ${(e as Error).message}`)
      return
    }
    // Saved now rather than by the typing timer, whose "Draft saved" would replace the words below a moment later.
    if (await saveDraft('button')) setStatus(`"current" is now "${name}" in the text: publish to put that phase live.`)
  }
  const onRestored = async (version: number, warning?: string) => {
    const fresh = await studioApi.launch(slug)
    const restored = fresh.draftText ?? fresh.liveText
    savedText.current = restored
    editor.current?.replaceText(restored)
    setProblems(fresh.problems)
    setPublished({ version, ms: 0, url: detail.localUrl, warning })
    setStatus(
      local
        ? `Restored: saved to the file again as version ${version}.`
        : `Restored: published again as version ${version}.`,
    )
    void refreshPreview()
    setHistoryKey((k) => k + 1)
  }

  return (
    <main className="editor" aria-labelledby="launch-heading">
      <div className="toolbar">
        <div className="title">
          <h1 id="launch-heading">{detail.siteName}</h1>
          <p className="status" role="status">
            {status}
          </p>
        </div>
        {canEdit && (
          <div className="actions">
            <button type="button" onClick={() => void saveDraft('button')} aria-keyshortcuts="Control+S Meta+S">
              Save draft
            </button>
            {!local && (
              <button type="button" onClick={() => void makeLink()}>
                Preview link
              </button>
            )}
            <button
              type="button"
              onClick={() => pictureInput.current?.click()}
              title="Adds a picture at the cursor in the text (or drop one onto the text)"
            >
              Add picture
            </button>
            <input
              ref={pictureInput}
              type="file"
              accept="image/png,image/jpeg,image/webp,image/avif,image/gif"
              multiple
              hidden
              aria-label="Picture files to add"
              onChange={(event) => {
                const files = [...(event.currentTarget.files ?? [])]
                event.currentTarget.value = ''
                const pos = editor.current?.view.state.selection.main.head ?? 0
                if (files.length) void addPictures(files, pos)
              }}
            />
            <button type="button" className="primary" onClick={openPublish}>
              {words.publish}
            </button>
          </div>
        )}
      </div>
      {detail.changedOnDisk && (
        <p className="banner warn" role="alert">
          {local
            ? 'The file was changed outside this editor since its last version. Saving from here replaces it: compare in History first.'
            : 'The file on disk was changed outside the studio since the live version. Publishing from here replaces it: compare in History first.'}
        </p>
      )}
      {published && (
        <div className="banner ok" role="status">
          {local ? (
            <p>
              Version {published.version} is saved to {published.url}. Nothing was built: npm run dev shows it, npm run
              build or npm start puts it live.
            </p>
          ) : (
            <p>
              Version {published.version} is live{published.ms ? ` (in ${(published.ms / 1000).toFixed(1)} s)` : ''}:{' '}
              <a href={published.url} target="_blank" rel="noreferrer">
                {published.url}
              </a>
            </p>
          )}
        </div>
      )}
      {published?.warning && (
        <p className="banner warn" role="alert">
          {published.warning}
        </p>
      )}
      {blocking.length > 0 && (
        <div className="banner warn" role="alert">
          <p>
            {words.not}: {countProblems(blocking.length)} must be fixed first (listed under the text).
          </p>
        </div>
      )}
      {link && (
        <div className="banner" role="status">
          <CopyField label="Preview link (read-only, no account needed)" value={link.url} />
          <p>
            Works until {formatMoment(link.expiresAt)}. It shows the draft as saved now
            {link.phase ? `, in the ${phases?.list.find((p) => p.name === link.phase)?.words ?? link.phase} phase` : ''}
            .
          </p>
        </div>
      )}
      <div className="workspace">
        <section className="source" aria-label="Text">
          <div className="code" ref={editorHost} />
          <ProblemList
            problems={problems}
            onLocate={(line, column) => editor.current?.goTo(line, column)}
            headingId="problems-heading"
          />
        </section>
        <section className="form-view" aria-labelledby="form-view-heading">
          <h2 id="form-view-heading">{part ? part.title : 'Form'}</h2>
          {config === undefined && (
            <p className="muted">The text is not valid JSON at the moment: the form shows again once it is.</p>
          )}
          {config !== undefined && !part && (
            <p className="muted">
              Put the cursor in a section, a form field or the SEO block to change it here without touching brackets.
            </p>
          )}
          {config !== undefined && part && (
            <FormView
              key={part.path.join('/')}
              part={part}
              value={partValue(config, part)}
              onChange={onFormChange}
              idPrefix="part"
            />
          )}
        </section>
        <div className="preview-pane">
          {phases && (
            <PhasePicker
              phases={phases}
              canEdit={canEdit}
              onShow={showPhase}
              onMakeCurrent={(name) => void makeCurrent(name)}
            />
          )}
          <PreviewFrames frames={frames} />
        </div>
      </div>
      <History
        key={historyKey}
        slug={slug}
        canEdit={canEdit}
        local={local}
        onRestored={(v, warning) => void onRestored(v, warning)}
      />
      <dialog ref={publishDialog} className="confirm" aria-labelledby="publish-heading">
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault()
            void publish()
          }}
        >
          <h2 id="publish-heading">{local ? `Save ${detail.siteName} to its file?` : `Publish ${detail.siteName}?`}</h2>
          <p>
            {local
              ? `The text as it is now is written to ${detail.localUrl} and becomes a new version in History.`
              : `The text as it is now goes live at ${detail.localUrl} and becomes a new version in History.`}
          </p>
          <label>
            What changed (optional)
            <input value={message} onChange={(e) => setMessage(e.target.value)} maxLength={200} />
          </label>
          <div className="actions">
            <button type="submit" className="primary">
              {local ? 'Save to file now' : 'Publish now'}
            </button>
            <button type="button" onClick={() => publishDialog.current?.close()}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </main>
  )
}
