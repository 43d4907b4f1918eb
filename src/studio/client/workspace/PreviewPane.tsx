import { PhasePicker } from '../views/PhasePicker.tsx'
import { PreviewFrames } from '../views/PreviewFrames.tsx'
import type { PreviewBridge } from './use-preview-bridge.ts'

type Props = {
  bridge: PreviewBridge
  canEdit: boolean
  onShow: (name: string) => void
  onMakeCurrent: (name: string) => Promise<void>
}

/** The right-hand pane: the phase picker above the phone and desktop previews. */
export function PreviewPane({ bridge, canEdit, onShow, onMakeCurrent }: Props) {
  return (
    <div className="preview-pane">
      {bridge.phases && (
        <PhasePicker
          phases={bridge.phases}
          canEdit={canEdit}
          onShow={onShow}
          onMakeCurrent={(name) => void onMakeCurrent(name)}
        />
      )}
      <PreviewFrames frames={bridge.framesRef} />
    </div>
  )
}
