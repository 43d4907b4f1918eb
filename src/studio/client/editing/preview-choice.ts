import type { ClientPageConfig } from '../../../../schema/page-config.ts'
import type { PreviewResponse } from '../../protocol.ts'

/** What the preview frames show now: nothing yet, or a config in a phase (undefined: a config without phases). */
export type ShownPreview = { phase: string | undefined } | null

/**
 * Whether a preview answer replaces what the frames show. While the draft has problems (a comma not yet typed), the
 * server answers with the live text's page: the frames keep the last good text typed instead, so the page never
 * flickers back to old content on a keystroke. The live page is shown only when the frames show nothing yet, or
 * when another phase was asked for (the person chose it, and the last good text was shown in another one).
 */
export function replacesShownPreview(
  answer: PreviewResponse,
  shown: ShownPreview,
): answer is PreviewResponse & { config: ClientPageConfig } {
  if (!answer.config) return false
  if (answer.problems.length === 0 || shown === null) return true
  return answer.phases?.shown !== shown.phase
}
