import { useEffect, useRef, useState, type FormEvent, type InputHTMLAttributes } from 'react'
import { slugOf, type LaunchSummary, type NewLaunchRequest } from '../../protocol.ts'
import { StudioRequestError, studioApi } from '../api.ts'
import { navigate } from '../navigation.tsx'

type FieldName = keyof Omit<NewLaunchRequest, 'from'>

const fields: { name: FieldName; label: string; type: string; hint: string; autoComplete?: string }[] = [
  {
    name: 'name',
    label: 'Development name',
    type: 'text',
    hint: 'As buyers know it, e.g. Maple Ridge. It replaces the old name everywhere in the copy.',
  },
  {
    name: 'slug',
    label: 'Short name (slug)',
    type: 'text',
    hint: 'Made from the name: lower-case letters, digits and dashes. The launch is served at <slug>.localhost.',
  },
  {
    name: 'phone',
    label: 'Phone',
    type: 'tel',
    hint: 'The sales office number buyers call, with its area code, e.g. (555) 555-0199.',
    autoComplete: 'off',
  },
  { name: 'email', label: 'E-mail', type: 'email', hint: 'The address shown on the page.', autoComplete: 'off' },
  {
    name: 'address',
    label: 'Address',
    type: 'text',
    hint: 'Where the development or its sales office is, in a few words.',
    autoComplete: 'off',
  },
  {
    name: 'domain',
    label: 'Web address (domain)',
    type: 'text',
    hint: 'Its own host name, e.g. mapleridge.example.com: the page is served there once published.',
  },
  {
    name: 'notifyEmail',
    label: 'Notification address',
    type: 'email',
    hint: 'Who gets an e-mail for each registration.',
    autoComplete: 'off',
  },
  {
    name: 'replyFrom',
    label: 'Reply sender',
    type: 'email',
    hint: 'The address the reply to each registrant comes from.',
    autoComplete: 'off',
  },
]

type FieldErrors = Record<string, string>

// The label holds only the field's name (its accessible name); the hint and the message describe it.
function describedBy(name: string, fieldErrors: FieldErrors): string {
  return [`hint-${name}`, fieldErrors[name] ? `error-${name}` : ''].filter(Boolean).join(' ')
}

function FieldError({ name, fieldErrors }: { name: string; fieldErrors: FieldErrors }) {
  return fieldErrors[name] ? (
    <span className="error" id={`error-${name}`}>
      {fieldErrors[name]}
    </span>
  ) : null
}

/** "Copy of": the launch the new one starts from. */
function FromField({ launches, fieldErrors }: { launches: LaunchSummary[] | undefined; fieldErrors: FieldErrors }) {
  return (
    <div className="field">
      <label htmlFor="new-launch-from">Copy of</label>
      <select
        id="new-launch-from"
        name="from"
        required
        aria-describedby={describedBy('from', fieldErrors)}
        aria-invalid={fieldErrors.from ? true : undefined}
      >
        {launches === undefined && <option value="">Loading the launches…</option>}
        {launches?.map((launch) => (
          <option key={launch.slug} value={launch.slug}>
            {launch.siteName}
          </option>
        ))}
      </select>
      <span className="hint" id="hint-from">
        Its sections, text and pictures are copied; change them in the editor afterwards.
      </span>
      <FieldError name="from" fieldErrors={fieldErrors} />
    </div>
  )
}

type FieldProps = {
  field: (typeof fields)[number]
  fieldErrors: FieldErrors
  inputProps: Pick<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>
}

/** One text field of the new launch, with its hint and the server's message about it. */
function NewLaunchField({ field, fieldErrors, inputProps }: FieldProps) {
  return (
    <div className="field">
      <label htmlFor={`new-launch-${field.name}`}>{field.label}</label>
      <input
        id={`new-launch-${field.name}`}
        name={field.name}
        type={field.type}
        required={field.name !== 'slug'}
        autoComplete={field.autoComplete}
        aria-describedby={describedBy(field.name, fieldErrors)}
        aria-invalid={fieldErrors[field.name] ? true : undefined}
        {...inputProps}
      />
      <span className="hint" id={`hint-${field.name}`}>
        {field.hint}
      </span>
      <FieldError name={field.name} fieldErrors={fieldErrors} />
    </div>
  )
}

/**
 * `New launch`: a copy of a chosen launch with the things that must change, so nothing of the old one survives by
 * mistake.
 */
export function NewLaunch() {
  // Until the launches arrive there is nothing to copy: the form is not sent with an empty "Copy of".
  const [launches, setLaunches] = useState<LaunchSummary[] | undefined>(undefined)
  const [error, setError] = useState('')
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({})
  const [busy, setBusy] = useState(false)
  const [slugTouched, setSlugTouched] = useState(false)
  const [slug, setSlug] = useState('')
  const form = useRef<HTMLFormElement>(null)
  useEffect(() => {
    studioApi.launches().then(setLaunches, (e: unknown) => {
      // Nothing to wait for any more: the message says why the list is empty.
      setLaunches([])
      setError((e as Error).message)
    })
  }, [])
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const data = Object.fromEntries(new FormData(event.currentTarget)) as Record<string, string>
    setBusy(true)
    setError('')
    setFieldErrors({})
    try {
      const made = await studioApi.newLaunch({ ...(data as unknown as NewLaunchRequest), slug })
      navigate({ view: 'launch', slug: made.slug })
    } catch (e) {
      const fieldsAtFault = e instanceof StudioRequestError ? e.fields : {}
      const problems = e instanceof StudioRequestError ? e.problems.map((p) => ` ${p.message}`).join('') : ''
      setFieldErrors(fieldsAtFault)
      setError(`${(e as Error).message}${problems}`)
      // The first field at fault takes the focus, so a keyboard or screen-reader user lands on what to change.
      const first = ['from', ...fields.map((f) => f.name)].find((name) => fieldsAtFault[name])
      if (first) requestAnimationFrame(() => form.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus())
    } finally {
      setBusy(false)
    }
  }
  return (
    <main className="page narrow" aria-labelledby="new-launch-heading">
      <h1 id="new-launch-heading">New launch</h1>
      <p>
        The new launch starts as a copy of another one. Write what belongs to the new development: it replaces the old
        one's everywhere in the copy.
      </p>
      <form ref={form} className="stack" noValidate onSubmit={(e) => void submit(e)}>
        <FromField launches={launches} fieldErrors={fieldErrors} />
        {fields.map((field) => (
          <NewLaunchField
            key={field.name}
            field={field}
            fieldErrors={fieldErrors}
            inputProps={
              field.name === 'slug'
                ? { value: slug, onChange: (e) => (setSlug(e.target.value), setSlugTouched(true)) }
                : field.name === 'name'
                  ? { onChange: (e) => !slugTouched && setSlug(slugOf(e.target.value)) }
                  : {}
            }
          />
        ))}
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy || launches === undefined}>
          {busy ? 'Making the launch…' : 'New launch'}
        </button>
      </form>
    </main>
  )
}
