import { useEffect, useState, type FormEvent } from 'react'
import type { AuditEntry, InviteResponse, LaunchSummary, Person, Role } from '../../protocol.ts'
import { studioApi } from '../api.ts'
import { formatMoment } from '../format.ts'

const roles: { role: Role; label: string }[] = [
  { role: 'owner', label: 'Owner: everything, people included' },
  { role: 'editor', label: 'Editor: edit, publish, restore, new launch' },
  { role: 'sales', label: 'Sales: the leads page only' },
]

function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false)
  const id = `copy-${label.replace(/\W+/g, '-').toLowerCase()}`
  return (
    <div className="copy">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input id={id} readOnly value={value} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void navigator.clipboard?.writeText(value).then(() => setCopied(true))}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </div>
    </div>
  )
}

export { CopyField }

/** A text field of a submitted form ('' when absent or a file). */
function formText(data: FormData, name: string): string {
  const value = data.get(name)
  return typeof value === 'string' ? value : ''
}

type InviteProps = {
  launches: LaunchSummary[]
  invite: InviteResponse | undefined
  onSubmit: (event: FormEvent<HTMLFormElement>) => void
}

/** Invite someone: their e-mail, role and launches; then the one-time link to pass on. */
function InviteSection({ launches, invite, onSubmit }: InviteProps) {
  return (
    <section aria-labelledby="invite-heading" className="panel">
      <h2 id="invite-heading">Invite someone</h2>
      <form className="stack" onSubmit={onSubmit}>
        <label>
          Their e-mail
          <input name="email" type="email" required autoComplete="off" />
        </label>
        <label>
          Role
          <select name="role" defaultValue="editor">
            {roles.map((r) => (
              <option key={r.role} value={r.role}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Only these launches (none ticked: every launch)</legend>
          {launches.map((launch) => (
            <label key={launch.slug} className="check">
              <input type="checkbox" name="launches" value={launch.slug} /> {launch.siteName}
            </label>
          ))}
        </fieldset>
        <button type="submit" className="primary">
          Invite
        </button>
      </form>
      {invite && (
        <div className="notice" role="status">
          <CopyField label="One-time sign-in link" value={invite.link} />
          <p>
            Valid until {formatMoment(invite.expiresAt)}.{' '}
            {invite.emailed ? 'It was also e-mailed to them.' : 'Send it to them yourself: no e-mail was sent.'}
          </p>
        </div>
      )}
    </section>
  )
}

type PersonProps = {
  person: Person
  act: (what: () => Promise<unknown>, done: string) => Promise<void>
  onSignInLink: () => void
}

/** One person with access: who, which launches, their role to change, a new sign-in link, remove. */
function PersonItem({ person, act, onSignInLink }: PersonProps) {
  return (
    <li>
      <p className="person">
        <strong>{person.email}</strong> {person.active ? '' : '(has not signed in yet)'}
        <br />
        <span className="muted">
          {person.launches?.length ? `Launches: ${person.launches.join(', ')}` : 'Every launch'} · invited{' '}
          {formatMoment(person.invitedAt)}
        </span>
      </p>
      <label>
        Role of {person.email}
        <select
          value={person.role}
          onChange={(e) =>
            void act(
              () => studioApi.changeRole(person.email, e.target.value as Role, person.launches),
              `${person.email} is now ${e.target.value}.`,
            )
          }
        >
          {roles.map((r) => (
            <option key={r.role} value={r.role}>
              {r.role}
            </option>
          ))}
        </select>
      </label>
      <button type="button" onClick={onSignInLink}>
        New sign-in link <span className="sr-only">for {person.email}</span>
      </button>
      <button
        type="button"
        className="danger"
        onClick={() => {
          if (window.confirm(`Remove ${person.email}? Their sessions end at once.`))
            void act(() => studioApi.removePerson(person.email), `${person.email} was removed.`)
        }}
      >
        Remove <span className="sr-only">{person.email}</span>
      </button>
    </li>
  )
}

/** The people with access (owners only): invite with a role and launches, change a role, remove. */
export function People() {
  const [people, setPeople] = useState<Person[]>()
  const [launches, setLaunches] = useState<LaunchSummary[]>([])
  const [invite, setInvite] = useState<InviteResponse>()
  const [error, setError] = useState('')
  const [status, setStatus] = useState('')
  const reload = () => studioApi.people().then(setPeople, (e: unknown) => setError((e as Error).message))
  useEffect(() => {
    void reload()
    studioApi.launches().then(setLaunches, () => {})
  }, [])
  const act = async (what: () => Promise<unknown>, done: string) => {
    setError('')
    try {
      await what()
      setStatus(done)
      await reload()
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = event.currentTarget
    const data = new FormData(form)
    const chosen = data.getAll('launches').map(String)
    setError('')
    try {
      const made = await studioApi.invite({
        email: formText(data, 'email'),
        role: formText(data, 'role') as Role,
        launches: chosen.length ? chosen : undefined,
      })
      setInvite(made)
      form.reset()
      await reload()
    } catch (e) {
      setError((e as Error).message)
    }
  }
  return (
    <main className="page" aria-labelledby="people-heading">
      <h1 id="people-heading">People</h1>
      <p className="sr-status" role="status">
        {status}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <InviteSection launches={launches} invite={invite} onSubmit={(e) => void submit(e)} />
      <section aria-labelledby="people-list-heading" className="panel">
        <h2 id="people-list-heading">Who has access</h2>
        {!people && !error && <p className="loading">Loading…</p>}
        <ul className="people" aria-label="People">
          {people?.map((person) => (
            <PersonItem
              key={person.email}
              person={person}
              act={act}
              onSignInLink={() => {
                setError('')
                studioApi.signInLink(person.email).then(setInvite, (e: unknown) => setError((e as Error).message))
              }}
            />
          ))}
        </ul>
      </section>
    </main>
  )
}

/** The audit log (owners only): every sign-in, save, publish, restore, invite and role change. */
export function AuditLog() {
  const [entries, setEntries] = useState<AuditEntry[]>()
  const [error, setError] = useState('')
  useEffect(() => {
    studioApi.audit().then(setEntries, (e: unknown) => setError((e as Error).message))
  }, [])
  return (
    <main className="page" aria-labelledby="audit-heading">
      <h1 id="audit-heading">Audit log</h1>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!entries && !error && <p className="loading">Loading…</p>}
      {entries && (
        // A scrolling region must be reachable by keyboard (WCAG 2.1.1; axe's scrollable-region-focusable).
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
        <div className="table-wrap" role="region" aria-labelledby="audit-heading" tabIndex={0}>
          <table className="audit">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Launch</th>
                <th scope="col">Detail</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry, i) => (
                <tr key={`${entry.at}-${i}`}>
                  <td>{formatMoment(entry.at)}</td>
                  <td>{entry.who}</td>
                  <td>{entry.action}</td>
                  <td>{entry.launch ?? ''}</td>
                  <td>{entry.detail ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  )
}
