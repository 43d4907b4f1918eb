import { useCallback, useRef } from 'react'
import type { LaunchDetail } from '../../protocol.ts'
import { HistoryButtons } from '../canvas/HistoryButtons.tsx'
import { SidePanel } from '../canvas/SidePanel.tsx'
import { useCanvas } from '../canvas/use-canvas.ts'
import { partOfPointer, type CodeEditor } from '../editing/code-editor.ts'
import { History } from '../views/History.tsx'
import { PreviewLinks } from '../views/PreviewLinks.tsx'
import { BlockingBanner, ChangedOnDiskBanner, PreviewLinkBanner, PublishedBanner } from './Banners.tsx'
import { EditorToolbar } from './EditorToolbar.tsx'
import { FormPanel } from './FormPanel.tsx'
import { PreviewPane } from './PreviewPane.tsx'
import { PublishDialog } from './PublishDialog.tsx'
import { SourcePane } from './SourcePane.tsx'
import { useCodeEditor } from './use-code-editor.ts'
import { useDraft } from './use-draft.ts'
import { useFormPart } from './use-form-part.ts'
import { usePhases } from './use-phases.ts'
import { usePictures } from './use-pictures.ts'
import { usePreviewBridge, type FrameListener } from './use-preview-bridge.ts'
import { usePublishing } from './use-publishing.ts'
import { useSaveKey } from './use-save-key.ts'
import { useTeam } from './use-team.ts'
import { useDocumentTitle } from './use-document-title.ts'
import { TeamBanners } from '../team/TeamBanners.tsx'
import { publishWords } from './words.ts'

type Props = { detail: LaunchDetail; canEdit: boolean; local: boolean }

function sectionOfPointer(pointer: string): number | undefined {
  const part = partOfPointer(pointer)
  return part?.kind === 'section' ? part.index : undefined
}

/** Under the editor: the published versions and, with accounts, the preview links that work now. */
function Records(props: {
  slug: string
  canEdit: boolean
  local: boolean
  publishing: ReturnType<typeof usePublishing>
  newLink: unknown
}) {
  const { slug, canEdit, local, publishing } = props
  return (
    <>
      <History
        key={publishing.historyKey}
        slug={slug}
        canEdit={canEdit}
        local={local}
        onRestored={(v, warning) => void publishing.onRestored(v, warning)}
      />
      {!local && <PreviewLinks slug={slug} refreshKey={props.newLink} />}
    </>
  )
}

/**
 * One launch's workspace: the toolbar, the banners, the text with its problems, the form view, the phases and
 * previews, History and the publish dialog. Each job is a hook or a component of its own; this only wires them.
 */
export function Workspace({ detail, canEdit, local }: Props) {
  const { slug } = detail
  const words = publishWords(local)
  useDocumentTitle(`${detail.siteName} — ${local ? 'page editor' : 'Studio'}`)
  const editorRef = useRef<CodeEditor | null>(null)
  const listenerRef = useRef<FrameListener | undefined>(undefined)
  const bridge = usePreviewBridge(slug, editorRef, listenerRef)
  const draft = useDraft({ detail, canEdit, local, editorRef, refreshPreview: bridge.refreshPreview })
  const addPictures = usePictures(slug, editorRef, draft.setStatus)
  const { saveDraft } = draft
  const publishing = usePublishing({ detail, local, words, editorRef, draft, refreshPreview: bridge.refreshPreview })
  const onSettled = useSaveKey(local, saveDraft, () => void publishing.publish())
  const onDropFiles = useCallback((files: File[], pos: number) => void addPictures(files, pos), [addPictures])
  const {
    hostRef: codeHostRef,
    text,
    pointer,
  } = useCodeEditor({
    editorRef,
    initialText: detail.draftText ?? detail.liveText,
    initialProblems: detail.problems,
    onSettled,
    onCursorPart: bridge.showCursorPart,
    onDropFiles,
  })
  const form = useFormPart(text, pointer, editorRef, draft.setStatus)
  const team = useTeam({ detail, canEdit, local, editorRef, draft, text, refreshPreview: bridge.refreshPreview })
  const phases = usePhases({ slug, editorRef, draft, bridge })
  const { canvas, stepTo, note } = useCanvas({ editorRef, bridge, listenerRef, saveDraft, slug })

  return (
    <main className="editor" aria-labelledby="launch-heading">
      <EditorToolbar
        siteName={detail.siteName}
        status={draft.status}
        note={note}
        canEdit={canEdit}
        local={local}
        words={words}
        onSaveDraft={() => void saveDraft('button')}
        onPreviewLink={() => void phases.makeLink()}
        onPictures={(files) => void addPictures(files, editorRef.current?.view.state.selection.main.head ?? 0)}
        publishing={publishing}
      >
        <HistoryButtons onStep={stepTo} />
      </EditorToolbar>
      <TeamBanners team={team} mine={() => editorRef.current?.text() ?? ''} />
      {detail.changedOnDisk && <ChangedOnDiskBanner local={local} />}
      {publishing.published && <PublishedBanner published={publishing.published} local={local} />}
      {publishing.blocking.length > 0 && <BlockingBanner blocking={publishing.blocking} words={words} />}
      {phases.link && <PreviewLinkBanner link={phases.link} phases={bridge.phases} />}
      <div className="workspace">
        <SourcePane
          hostRef={codeHostRef}
          problems={draft.problems}
          onLocate={(line, column) => editorRef.current?.goTo(line, column)}
        />
        <SidePanel deps={canvas} config={form.config} selected={sectionOfPointer(pointer)} canEdit={canEdit}>
          <FormPanel config={form.config} part={form.part} onChange={form.onFormChange} />
        </SidePanel>
        <PreviewPane bridge={bridge} canEdit={canEdit} onShow={phases.showPhase} onMakeCurrent={phases.makeCurrent} />
      </div>
      <Records slug={slug} canEdit={canEdit} local={local} publishing={publishing} newLink={phases.link} />
      <PublishDialog
        dialog={publishing.dialog}
        siteName={detail.siteName}
        localUrl={detail.localUrl}
        local={local}
        message={publishing.message}
        onMessage={publishing.setMessage}
        onConfirm={() => void publishing.publish()}
      />
    </main>
  )
}
