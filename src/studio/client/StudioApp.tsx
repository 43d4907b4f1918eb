import { lazy, Suspense, useEffect, useState, type FormEvent } from 'react'
import type { MeResponse } from '../protocol.ts'
import { StudioRequestError, studioApi } from './api.ts'
import { StudioLink, useRoute } from './navigation.tsx'
import { LaunchList } from './views/LaunchList.tsx'
import { NewLaunch } from './views/NewLaunch.tsx'
import { AuditLog, People } from './views/People.tsx'

// The editor's code (CodeMirror, the schema, RJSF) loads when a launch is opened, not for the list or the people.
const LaunchEditor = lazy(() => import('./views/LaunchEditor.tsx').then((module) => ({ default: module.LaunchEditor })))

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const data = new FormData(event.currentTarget)
    setBusy(true)
    setError('')
    try {
      await fetch('/studio/api/session', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: data.get('email'), password: data.get('password'), code: data.get('code') || undefined }),
      }).then(async (response) => {
        if (!response.ok) throw new Error(((await response.json().catch(() => ({}))) as { error?: string }).error ?? 'Sign-in failed; try again.')
      })
      onSignedIn()
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main className="signin">
      <h1>Sign in to the studio</h1>
      <form onSubmit={(e) => void submit(e)} method="post" action="/studio/sign-in">
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <label>
          Code from your authenticator app (if you turned it on)
          <input name="code" inputMode="numeric" autoComplete="one-time-code" />
        </label>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  )
}

/** The studio: who is signed in, the navigation, and the view the address names. */
export function StudioApp() {
  const route = useRoute()
  const [me, setMe] = useState<MeResponse | null | undefined>(undefined)
  const [error, setError] = useState('')
  const load = () => {
    studioApi.me().then(setMe, (e: unknown) => {
      if (e instanceof StudioRequestError && e.status === 401) setMe(null)
      else setError((e as Error).message)
    })
  }
  useEffect(load, [])

  if (error) return <p className="fatal" role="alert">{error}</p>
  if (me === undefined) return <p className="loading">Opening the studio…</p>
  if (me === null) return <SignIn onSignedIn={load} />
  const canEdit = me.role !== 'sales'
  const owner = me.role === 'owner'
  const signOut = () => void studioApi.signOut().finally(() => window.location.assign('/studio/'))
  return (
    <div className={route.view === 'launch' ? 'studio studio-editing' : 'studio'}>
      <a className="skip" href="#studio-main">
        Skip to the content
      </a>
      <header className="topbar">
        <StudioLink to={{ view: 'launches' }} className="brand">
          Studio
        </StudioLink>
        <nav aria-label="Studio">
          <ul>
            <li>
              <StudioLink to={{ view: 'launches' }} current={route.view === 'launches'}>
                Launches
              </StudioLink>
            </li>
            {canEdit && (
              <li>
                <StudioLink to={{ view: 'new-launch' }} current={route.view === 'new-launch'}>
                  New launch
                </StudioLink>
              </li>
            )}
            {owner && (
              <li>
                <StudioLink to={{ view: 'people' }} current={route.view === 'people'}>
                  People
                </StudioLink>
              </li>
            )}
            {owner && (
              <li>
                <StudioLink to={{ view: 'audit' }} current={route.view === 'audit'}>
                  Audit log
                </StudioLink>
              </li>
            )}
          </ul>
        </nav>
        <p className="who">
          {me.email} · {me.role}
        </p>
        <button type="button" className="quiet" onClick={signOut}>
          Sign out
        </button>
      </header>
      <div id="studio-main" className="content" tabIndex={-1}>
        {route.view === 'launches' && <LaunchList canEdit={canEdit} />}
        {route.view === 'launch' && (
          <Suspense fallback={<p className="loading">Opening the editor…</p>}>
            <LaunchEditor key={route.slug} slug={route.slug} canEdit={canEdit} />
          </Suspense>
        )}
        {route.view === 'new-launch' && <NewLaunch />}
        {route.view === 'people' && <People />}
        {route.view === 'audit' && <AuditLog />}
      </div>
    </div>
  )
}
