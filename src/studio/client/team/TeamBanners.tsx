import { DraftConflictBanner } from './DraftConflictBanner.tsx'
import { EditorsNow } from './EditorsNow.tsx'
import { UnsavedWorkOffer } from './UnsavedWorkOffer.tsx'
import type { useDraftSafety } from './use-draft-safety.ts'

/** The editor's team banners: who else is editing, a newer draft or a refused save, unsaved work offered back. */
export function TeamBanners({ team, mine }: { team: ReturnType<typeof useDraftSafety>; mine: () => string }) {
  const { view, actions } = team
  return (
    <>
      <EditorsNow others={view.others} />
      {view.unsaved && (
        <UnsavedWorkOffer
          work={view.unsaved}
          onRestore={() => view.unsaved && actions.restoreUnsaved(view.unsaved)}
          onDiscard={actions.discardUnsaved}
        />
      )}
      {view.conflict && (
        <DraftConflictBanner
          key={view.conflict.draft.version}
          conflict={view.conflict.draft}
          refused={view.conflict.refused}
          mine={mine}
          onTakeTheirs={() => view.conflict && actions.takeTheirs(view.conflict.draft)}
          onKeepMine={() => view.conflict && actions.keepMine(view.conflict.draft)}
        />
      )}
    </>
  )
}
