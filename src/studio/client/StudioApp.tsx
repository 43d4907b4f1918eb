import { lazy, Suspense, useEffect, useState } from 'react'
import type { MeResponse } from '../protocol.ts'
import { Allocation } from './allocation/Allocation.tsx'
import { StudioRequestError, studioApi } from './api.ts'
import { StudioLink, useRoute } from './navigation.tsx'
import type { Route } from './routes.ts'
import { LaunchList } from './views/LaunchList.tsx'
import { NewLaunch } from './views/NewLaunch.tsx'
import { AuditLog, People } from './views/People.tsx'

// The editor's code (CodeMirror, the schema, RJSF) loads when a launch is opened, not for the list or the people.
const LaunchEditor = lazy(() => import('./views/LaunchEditor.tsx').then((module) => ({ default: module.LaunchEditor })))

/** Where the server asks for Email and Password (its own page, which works without JavaScript). */
export const signInPath = '/studio/sign-in'
/** The leads page (the server's own pages, under the same sign-in). */
export const leadsPath = '/leads'

function SignOut() {
  return (
    <form method="post" action="/studio/sign-out">
      <button type="submit" className="quiet">
        Sign out
      </button>
    </form>
  )
}

/** The Allocation pages a sales account may open: one link a launch given (or every launch, where none is named). */
function SalesAllocations() {
  const [launches, setLaunches] = useState<Array<{ slug: string; siteName: string }>>([])
  useEffect(() => {
    studioApi.allocationLaunches().then(
      (answer) => setLaunches(answer.launches),
      () => setLaunches([]),
    )
  }, [])
  if (launches.length === 0) return null
  return (
    <>
      <h2>Allocation</h2>
      <ul>
        {launches.map((launch) => (
          <li key={launch.slug}>
            <StudioLink to={{ view: 'allocation', slug: launch.slug }}>Allocation: {launch.siteName}</StudioLink>
          </li>
        ))}
      </ul>
    </>
  )
}

/** What a sales account sees in the studio: the way to the leads page, and the Allocation of each launch given. */
function SalesHome({ me }: { me: MeResponse }) {
  const route = useRoute()
  return (
    <div className="studio">
      <header className="topbar">
        <StudioLink to={{ view: 'launches' }} className="brand">
          Studio
        </StudioLink>
        <p className="who">{me.email} · sales</p>
        <SignOut />
      </header>
      {route.view === 'allocation' ? (
        <Allocation slug={route.slug} accountRole="sales" />
      ) : (
        <main className="page" aria-labelledby="sales-heading">
          <h1 id="sales-heading">Leads</h1>
          <p>Your account has the leads page: the registrations, their search and the CSV download.</p>
          <p>
            <a href={leadsPath}>Open the leads page</a>
          </p>
          <SalesAllocations />
        </main>
      )}
    </div>
  )
}

/** On a launch's page: the way to its Allocation (owners) or its lots (editors: they change lots, never allocate). */
function LaunchLinks({ slug, owner, view }: { slug: string; owner: boolean; view: string }) {
  return (
    <li>
      <StudioLink to={{ view: 'allocation', slug }} current={view === 'allocation'}>
        {owner ? 'Allocation' : 'Lots'}
      </StudioLink>
    </li>
  )
}

/**
 * The studio's navigation: launches, new launch, and (hosted) the leads page, and for an owner people and audit log.
 */
function StudioNav({ route, local, owner }: { route: Route; local: boolean; owner: boolean }) {
  const view = route.view
  return (
    <nav aria-label="Studio">
      <ul>
        <li>
          <StudioLink to={{ view: 'launches' }} current={view === 'launches'}>
            Launches
          </StudioLink>
        </li>
        <li>
          <StudioLink to={{ view: 'new-launch' }} current={view === 'new-launch'}>
            New launch
          </StudioLink>
        </li>
        {!local && (
          <li>
            <a href={leadsPath}>Leads</a>
          </li>
        )}
        {!local && (view === 'launch' || view === 'allocation') && (
          <LaunchLinks slug={route.slug} owner={owner} view={view} />
        )}
        {owner && (
          <li>
            <StudioLink to={{ view: 'people' }} current={view === 'people'}>
              People
            </StudioLink>
          </li>
        )}
        {owner && (
          <li>
            <StudioLink to={{ view: 'audit' }} current={view === 'audit'}>
              Audit log
            </StudioLink>
          </li>
        )}
      </ul>
    </nav>
  )
}

/** The studio: who is signed in, the navigation, and the view the address names. */
export function StudioApp() {
  const route = useRoute()
  const [me, setMe] = useState<MeResponse | null | undefined>(undefined)
  const [error, setError] = useState('')
  const load = () => {
    studioApi.me().then(setMe, (e: unknown) => {
      if (e instanceof StudioRequestError && e.status === 401) {
        setMe(null)
        window.location.assign(signInPath)
      } else setError((e as Error).message)
    })
  }
  useEffect(load, [])

  if (error)
    return (
      <p className="fatal" role="alert">
        {error}
      </p>
    )
  if (me === undefined) return <p className="loading">Opening the studio…</p>
  if (me === null) {
    return (
      <p className="loading">
        You are signed out. <a href={signInPath}>Sign in</a>
      </p>
    )
  }
  const canEdit = me.role !== 'sales'
  const local = me.local === true
  // Local (`npm run edit`): one person on this computer, no accounts, no leads, nothing to sign out of.
  const owner = me.role === 'owner' && !local
  // A sales account has the leads page only: no launches, no editor.
  if (!canEdit) return <SalesHome me={me} />
  return (
    <div className={route.view === 'launch' ? 'studio studio-editing' : 'studio'}>
      <a className="skip" href="#studio-main">
        Skip to the content
      </a>
      <header className="topbar">
        <StudioLink to={{ view: 'launches' }} className="brand">
          Studio
        </StudioLink>
        <StudioNav route={route} local={local} owner={owner} />
        <p className="who">{local ? 'On this computer: saves go to the files' : `${me.email} · ${me.role}`}</p>
        {!local && <SignOut />}
      </header>
      <div id="studio-main" className="content" tabIndex={-1}>
        {route.view === 'launches' && <LaunchList canEdit={canEdit} local={local} />}
        {route.view === 'launch' && (
          <Suspense fallback={<p className="loading">Opening the editor…</p>}>
            <LaunchEditor key={route.slug} slug={route.slug} canEdit={canEdit} local={local} />
          </Suspense>
        )}
        {route.view === 'allocation' && <Allocation key={route.slug} slug={route.slug} accountRole={me.role} />}
        {route.view === 'new-launch' && <NewLaunch />}
        {route.view === 'people' && <People />}
        {route.view === 'audit' && <AuditLog />}
      </div>
    </div>
  )
}
