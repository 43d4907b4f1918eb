import { useEffect, useState, type FormEvent } from 'react'
import type { LaunchSummary, NewLaunchRequest } from '../../protocol.ts'
import { StudioRequestError, studioApi } from '../api.ts'
import { navigate } from '../navigation.tsx'

const fields: { name: keyof Omit<NewLaunchRequest, 'from'>; label: string; type: string; hint: string; autoComplete?: string }[] = [
  { name: 'name', label: 'Development name', type: 'text', hint: 'As buyers know it, e.g. Maple Ridge.' },
  { name: 'slug', label: 'Short name (slug)', type: 'text', hint: 'Lower-case letters, digits and dashes; the launch is served at <slug>.localhost.' },
  { name: 'phone', label: 'Phone', type: 'tel', hint: 'The sales office number buyers call.', autoComplete: 'off' },
  { name: 'email', label: 'E-mail', type: 'email', hint: 'The address shown on the page.', autoComplete: 'off' },
  { name: 'address', label: 'Address', type: 'text', hint: 'Where the development or the sales office is.', autoComplete: 'off' },
  { name: 'domain', label: 'Domain', type: 'text', hint: 'Its own host name, e.g. mapleridge.example.com.' },
  { name: 'notifyEmail', label: 'Notification address', type: 'email', hint: 'Who gets an e-mail for each registration.', autoComplete: 'off' },
  { name: 'replyFrom', label: 'Reply sender', type: 'email', hint: 'The address the reply to a registrant comes from.', autoComplete: 'off' },
]

/** Turns a development name into a slug: "Maple Ridge" → "maple-ridge". */
export function slugOf(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
}

/** `New launch`: a copy of a chosen launch with the things that must change, so nothing of the old one survives by mistake. */
export function NewLaunch() {
  const [launches, setLaunches] = useState<LaunchSummary[]>([])
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const [slugTouched, setSlugTouched] = useState(false)
  const [slug, setSlug] = useState('')
  useEffect(() => {
    studioApi.launches().then(setLaunches, (e: unknown) => setError((e as Error).message))
  }, [])
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const data = Object.fromEntries(new FormData(event.currentTarget)) as Record<string, string>
    setBusy(true)
    setError('')
    try {
      const made = await studioApi.newLaunch({ ...(data as unknown as NewLaunchRequest), slug })
      navigate({ view: 'launch', slug: made.slug })
    } catch (e) {
      const problems = e instanceof StudioRequestError ? e.problems.map((p) => ` ${p.message}`).join('') : ''
      setError(`${(e as Error).message}${problems}`)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main className="page narrow" aria-labelledby="new-launch-heading">
      <h1 id="new-launch-heading">New launch</h1>
      <p>The new launch starts as a copy of another one. Everything below belongs to the old development: change each of them.</p>
      <form className="stack" onSubmit={(e) => void submit(e)}>
        <label>
          Copy of
          <select name="from" required>
            {launches.map((launch) => (
              <option key={launch.slug} value={launch.slug}>
                {launch.siteName}
              </option>
            ))}
          </select>
        </label>
        {fields.map((field) => (
          <label key={field.name}>
            {field.label}
            <input
              name={field.name}
              type={field.type}
              required
              autoComplete={field.autoComplete}
              aria-describedby={`hint-${field.name}`}
              {...(field.name === 'slug'
                ? { value: slug, onChange: (e) => (setSlug(e.target.value), setSlugTouched(true)), pattern: '[a-z0-9]+(-[a-z0-9]+)*' }
                : field.name === 'name'
                  ? { onChange: (e) => !slugTouched && setSlug(slugOf(e.target.value)) }
                  : {})}
            />
            <span className="hint" id={`hint-${field.name}`}>
              {field.hint}
            </span>
          </label>
        ))}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Making the launch…' : 'New launch'}
        </button>
      </form>
    </main>
  )
}
