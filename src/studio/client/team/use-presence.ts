import { useEffect, useState } from 'react'
import type { PresenceResponse } from '../../protocol.ts'
import { studioApi } from '../api.ts'

/** How often an open editor says it is still open; the server forgets one silent for presenceExpiryMs (server side). */
export const heartbeatMs = 5000

/**
 * This open editor's heartbeat on a launch: who else has it open now, and the launch's latest draft version (how a
 * newer draft saved by someone else is noticed). Says goodbye when the page is left, so it drops off others' lists at
 * once; a lost connection drops off when its heartbeats stop.
 */
export function usePresence(slug: string, enabled: boolean): PresenceResponse | undefined {
  const [editor] = useState(() => crypto.randomUUID())
  const [answer, setAnswer] = useState<PresenceResponse>()
  useEffect(() => {
    if (!enabled) return
    let stopped = false
    const beat = () =>
      studioApi.presence(slug, editor).then(
        (next) => void (stopped || setAnswer(next)),
        () => {},
      )
    void beat()
    const timer = window.setInterval(() => void beat(), heartbeatMs)
    const leave = () => void studioApi.leave(slug, editor).catch(() => {})
    window.addEventListener('pagehide', leave)
    return () => {
      stopped = true
      window.clearInterval(timer)
      window.removeEventListener('pagehide', leave)
      leave()
    }
  }, [editor, enabled, slug])
  return answer
}
