import { useCallback, useEffect, useState } from 'react'
import type { LaunchDetail } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import { Workspace } from '../workspace/Workspace.tsx'

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
