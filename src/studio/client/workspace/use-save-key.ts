import { useCallback, useEffect, useRef } from 'react'

/**
 * What a pause in typing and Ctrl+S do: a pause saves the draft; Ctrl+S saves the draft, or in local mode
 * (`npm run edit`, one person on their computer, where Save means the file) writes the file as typed at once.
 * The answer is stable (the code editor is made once with it); `publish` is read when the key is pressed.
 */
export function useSaveKey(
  local: boolean,
  saveDraft: (reason: 'typing' | 'button') => Promise<boolean>,
  publish: () => void,
): (reason: 'typing' | 'button') => void {
  const publishRef = useRef(publish)
  useEffect(() => {
    publishRef.current = publish
  })
  return useCallback(
    (reason: 'typing' | 'button') => (local && reason === 'button' ? publishRef.current() : void saveDraft(reason)),
    [local, saveDraft],
  )
}
