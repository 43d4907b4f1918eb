import { useRef, type ReactNode } from 'react'
import { AddSectionDialog } from './AddSectionDialog.tsx'
import { SectionList } from './SectionList.tsx'
import { PictureDialog } from './PictureDialog.tsx'
import { hideInPhase } from './phase-hide.ts'
import { actOnSection, addSection, type CanvasState } from './use-canvas.ts'

type Props = {
  deps: CanvasState
  /** The config as typed (undefined while the text is not JSON). */
  config: unknown
  /** The section the cursor is in, if it is in one. */
  selected: number | undefined
  canEdit: boolean
  /** The form view of the selected part, under the list. */
  children: ReactNode
}

/** The side panel: the sections (select, move, add) above the form view of what is selected. */
export function SidePanel({ deps, config, selected, canEdit, children }: Props) {
  const dialog = useRef<HTMLDialogElement>(null)
  const count = (config as { sections?: unknown[] } | undefined)?.sections?.length ?? 0
  return (
    <div className="side-panel">
      {canEdit && (
        <SectionList
          config={config}
          selected={selected}
          onSelect={(index) => deps.editorRef.current?.goToPart({ kind: 'section', index }, false)}
          onAction={(action) => actOnSection(deps, action)}
          onAdd={() => dialog.current?.showModal()}
          phase={deps.bridge.phases?.list.find((phase) => phase.name === deps.bridge.phases?.shown)}
          onHide={(index, hide) => hideInPhase(deps, index, hide)}
        />
      )}
      {children}
      <AddSectionDialog
        dialog={dialog}
        config={config}
        suggested={selected === undefined ? count : selected + 1}
        onChoose={(type, index) => addSection(deps, type, index)}
      />
      <PictureDialog pending={deps.pendingPicture} onReplace={deps.replacePicture} onCancel={deps.cancelPicture} />
    </div>
  )
}
