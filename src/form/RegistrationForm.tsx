import Form from '@rjsf/core'
import {
  errorId,
  getInputProps,
  type ErrorSchema,
  type FieldTemplateProps,
  type ObjectFieldTemplateProps,
  type WidgetProps,
} from '@rjsf/utils'
import type { RJSFSchema } from '@rjsf/utils'
import type { ValidatorFunctions } from '@rjsf/validator-ajv8'
import { useEffect, useMemo, useRef, useState, type ChangeEvent } from 'react'
import type { FormUi } from '../../schema/form-config.ts'
import { createBrowserValidator } from './browser-validator.ts'
import { readDraft } from './draft.ts'
import { formFieldNames, trimRegistration, type RegistrationData } from '../../schema/registration-rules.ts'
import { useRegistrationState } from './registration-state.tsx'
import { honeypotField } from '../../schema/registration-contract.ts'
import { registrationEndpoint } from './registration-endpoint.ts'
import { NoScriptBranches } from './NoScriptBranches.tsx'

const inputClass =
  'block w-full rounded-lg border bg-white px-4 py-3 text-base text-ink shadow-sm placeholder:text-ink-muted/80 focus:border-forest-700 focus:ring-2 focus:ring-forest-700/30 focus:outline-none'

function FieldTemplate({ id, label, children, rawErrors, schema, hidden, uiSchema }: FieldTemplateProps) {
  if (hidden) return <div className="hidden">{children}</div>
  if (schema.type === 'object') return children
  const message = rawErrors?.[0]
  const error = (
    <p id={errorId(id)} className="mt-1.5 min-h-0 text-sm font-medium text-red-700 empty:hidden">
      {message}
    </p>
  )
  // A yes/no box (the updates box): the checkbox widget labels itself, beside the box.
  if (schema.type === 'boolean') {
    return (
      <div>
        {children}
        {error}
      </div>
    )
  }
  if (uiSchema?.['ui:widget'] === 'radio') {
    // The group is what is invalid (ARIA has no aria-invalid on a radio): the fieldset its legend names carries it.
    return (
      <fieldset aria-invalid={message ? true : undefined}>
        <legend className="mb-2 text-sm font-semibold text-ink">{label}</legend>
        {children}
        {error}
      </fieldset>
    )
  }
  return (
    <div>
      <label htmlFor={id} className="mb-1.5 block text-sm font-semibold text-ink">
        {label}
      </label>
      {children}
      {error}
    </div>
  )
}

// The fields in a plain stack: the form's own group needs no unnamed <fieldset> around it.
function ObjectFieldTemplate({ properties }: ObjectFieldTemplateProps) {
  return <div className="space-y-4">{properties.map((property) => (property.hidden ? null : property.content))}</div>
}

function BaseInputTemplate(props: WidgetProps & { type?: string }) {
  const {
    id,
    htmlName,
    disabled,
    readonly,
    autofocus,
    onBlur,
    onFocus,
    onChange,
    options,
    schema,
    rawErrors,
    type,
    placeholder,
  } = props
  // What a text input holds: a string or a number field's value (or nothing yet).
  const value = props.value as string | number | null | undefined
  const inputProps = getInputProps(schema, type, options)
  const invalid = Boolean(rawErrors?.length)
  return (
    <input
      id={id}
      name={htmlName || id}
      {...inputProps}
      value={value == null ? '' : String(value)}
      placeholder={placeholder}
      disabled={disabled}
      readOnly={readonly}
      // Only when a launch's uiSchema asks for it (RJSF's ui:autofocus); no config does by default.
      // eslint-disable-next-line jsx-a11y/no-autofocus -- see the line above
      autoFocus={autofocus}
      aria-invalid={invalid || undefined}
      aria-describedby={errorId(id)}
      className={`${inputClass} ${invalid ? 'border-red-700' : 'border-ink/35'}`}
      onChange={(event: ChangeEvent<HTMLInputElement>) =>
        onChange(event.target.value === '' ? options.emptyValue : event.target.value)
      }
      onBlur={(event) => onBlur(id, event.target.value)}
      onFocus={(event) => onFocus(id, event.target.value)}
    />
  )
}

/** A yes/no box (e.g. the updates box, express consent): unticked until the visitor ticks it, labelled beside it. */
function CheckboxWidget({
  id,
  htmlName,
  label,
  value,
  disabled,
  readonly,
  onChange,
  onBlur,
  onFocus,
  rawErrors,
}: WidgetProps) {
  return (
    <label className="flex min-h-11 cursor-pointer items-center gap-2.5 text-base text-ink">
      <input
        type="checkbox"
        id={id}
        name={htmlName || id}
        checked={value === true}
        disabled={disabled || readonly}
        aria-invalid={Boolean(rawErrors?.length) || undefined}
        aria-describedby={errorId(id)}
        className="size-5 shrink-0 accent-forest-900"
        onChange={(event) => onChange(event.target.checked)}
        onBlur={() => onBlur(id, value)}
        onFocus={() => onFocus(id, value)}
      />
      <span>{label}</span>
    </label>
  )
}

function RadioWidget({ id, htmlName, options, value, disabled, readonly, onChange, onBlur, onFocus }: WidgetProps) {
  return (
    <div className="flex flex-wrap gap-3">
      {(options.enumOptions ?? []).map((option, index) => {
        const optionValue = String(option.value)
        return (
          <label
            key={optionValue}
            className="flex min-h-11 min-w-24 cursor-pointer items-center gap-2.5 rounded-lg border border-ink/35 bg-white px-4 py-2 text-base has-[:checked]:border-forest-700 has-[:checked]:bg-forest-100 has-[:focus-visible]:ring-2 has-[:focus-visible]:ring-forest-700"
          >
            <input
              type="radio"
              id={`${id}-${index}`}
              name={htmlName || id}
              value={optionValue}
              checked={value === option.value}
              disabled={disabled || readonly}
              aria-describedby={errorId(id)}
              className="size-5 accent-forest-900"
              onChange={() => onChange(option.value)}
              onBlur={(event) => onBlur(id, event.target.value)}
              onFocus={(event) => onFocus(id, event.target.value)}
            />
            {option.label}
          </label>
        )
      })}
    </div>
  )
}

/**
 * A choice from a list (ui:widget "select"): each option's value is the schema's own, not RJSF's index of it, so a
 * post without JavaScript sends what the server checks.
 */
function SelectWidget({
  id,
  htmlName,
  options,
  value,
  placeholder,
  disabled,
  readonly,
  rawErrors,
  onChange,
  onBlur,
  onFocus,
}: WidgetProps) {
  const invalid = Boolean(rawErrors?.length)
  const choices = options.enumOptions ?? []
  return (
    <select
      id={id}
      name={htmlName || id}
      value={value == null ? '' : String(value)}
      disabled={disabled || readonly}
      aria-invalid={invalid || undefined}
      aria-describedby={errorId(id)}
      className={`${inputClass} ${invalid ? 'border-red-700' : 'border-ink/35'}`}
      onChange={(event) =>
        onChange(choices.find((choice) => String(choice.value) === event.target.value)?.value ?? options.emptyValue)
      }
      onBlur={(event) => onBlur(id, event.target.value)}
      onFocus={(event) => onFocus(id, event.target.value)}
    >
      <option value="">{placeholder ?? ''}</option>
      {choices.map((choice) => (
        <option key={String(choice.value)} value={String(choice.value)}>
          {choice.label}
        </option>
      ))}
    </select>
  )
}

const templates = { FieldTemplate, ObjectFieldTemplate, BaseInputTemplate }
const widgets = { RadioWidget, CheckboxWidget, SelectWidget }

/** Values typed into the prerendered inputs before this code arrived: React state does not have them yet. */
function readTypedValues(formElement: HTMLFormElement, schema: RJSFSchema): RegistrationData {
  const typed: RegistrationData = {}
  for (const field of formFieldNames(schema)) {
    const name = field
    const checked = formElement.querySelector<HTMLInputElement>(`input[type="radio"][name="${name}"]:checked`)
    const input = formElement.querySelector<HTMLInputElement | HTMLSelectElement>(
      `input:not([type="radio"])[name="${name}"], select[name="${name}"]`,
    )
    // A checkbox's value is "on" whether or not it is ticked: what counts is that it is (a yes/no field, e.g. updates).
    if (input instanceof HTMLInputElement && input.type === 'checkbox') {
      if (input.checked) typed[field] = true
      continue
    }
    const value = checked?.value ?? input?.value
    if (value) typed[field] = value
  }
  return typed
}

/** An input's name is its field's (path) name, as the function reads a plain form post: "email", not "inline_email". */
const fieldName = (path: readonly (string | number)[]) => path.map(String).join('.')

/** What the form is made of; the build compiles all three from the config's `form`. */
export type RegistrationFormProps = {
  /** Distinguishes the ids of the two instances (inline and dialog). */
  idPrefix: string
  /** The form's JSON Schema, with the $id its precompiled validator is keyed by. */
  schema: RJSFSchema
  /** Layout, messages and button labels. */
  ui: FormUi
  /**
   * The schema's precompiled validate functions (Ajv standalone: no code generation in the browser), by schema id or
   * hash.
   */
  validators: ValidatorFunctions
}

/**
 * The form's state and handlers: the shared registration state, live validation from the first submit on, and on
 * first mount the restore of a draft and of what was typed into the prerendered inputs.
 */
function useRegistrationForm({ schema, ui, validators }: Omit<RegistrationFormProps, 'idPrefix'>) {
  const { validator, transformErrors } = useMemo(
    () => createBrowserValidator(validators, schema, ui.messages),
    [schema, ui.messages, validators],
  )
  const state = useRegistrationState()
  const { formData, setFormData, serverErrors, accepted, submit } = state
  const [attempted, setAttempted] = useState(false)
  // After a registration is accepted (from this form or the other) the form starts afresh: its live validation off
  // until the next submit, set in this same render so the emptied data is never validated. RJSF keeps the errors of
  // its last validation in its own state, so the key below also gives a new <Form>.
  const [acceptedSeen, setAcceptedSeen] = useState(accepted)
  if (acceptedSeen !== accepted) {
    setAcceptedSeen(accepted)
    setAttempted(false)
  }
  const formRef = useRef<Form>(null)

  useEffect(() => {
    const element = formRef.current?.formElement.current as HTMLFormElement | null | undefined
    if (!element) return
    // Not before now: a state change reaching the prerendered form before it hydrates makes React discard it.
    const restored = { ...readDraft(), ...readTypedValues(element, schema), ...formData }
    if (Object.keys(restored).length > Object.keys(formData).length) setFormData(restored)
    // Only once, when this instance first mounts (hydrates): the draft of an earlier visit in this tab, and
    // what was typed into the prerendered inputs before this code arrived.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [])

  const extraErrors = Object.fromEntries(
    Object.entries(serverErrors).map(([field, message]) => [field, { __errors: [message] }]),
  ) as ErrorSchema

  return {
    ...state,
    validator,
    transformErrors,
    formRef,
    attempted,
    extraErrors,
    onError: () => setAttempted(true),
    onSubmit: async (data: unknown) => {
      setAttempted(true)
      await submit(trimRegistration(data, schema))
    },
  }
}

/**
 * The honeypot: off screen, out of the tab order, hidden from assistive technology, named and labelled like no field
 * a browser autofills.
 */
function Honeypot({ idPrefix, honeypotRef }: { idPrefix: string; honeypotRef: { current: string } }) {
  return (
    <div className="absolute -left-[10000px] h-px w-px overflow-hidden" aria-hidden="true">
      <label htmlFor={`${idPrefix}_hp`}>Leave this empty</label>
      <input
        id={`${idPrefix}_hp`}
        name={honeypotField}
        type="text"
        tabIndex={-1}
        autoComplete="off"
        defaultValue=""
        onChange={(event) => {
          honeypotRef.current = event.target.value
        }}
      />
    </div>
  )
}

/**
 * The registration form, rendered by react-jsonschema-form from the config's schema and uiSchema. Both
 * instances share one state (typing in one shows in the other), validate with the precompiled validator and
 * show one message per field, in the config's words.
 */
export function RegistrationForm({ idPrefix, schema, ui, validators }: RegistrationFormProps) {
  const {
    form,
    launch,
    formData,
    setFormData,
    status,
    accepted,
    honeypot: honeypotRef,
    formRef,
    validator,
    transformErrors,
    attempted,
    extraErrors,
    onError,
    onSubmit,
  } = useRegistrationForm({ schema, ui, validators })
  const submitting = status === 'submitting'
  return (
    <Form
      key={accepted}
      ref={formRef}
      schema={schema}
      uiSchema={ui.uiSchema}
      formData={formData}
      validator={validator}
      idPrefix={idPrefix}
      // A real form before this code runs (and without JavaScript): a POST of the fields by their own names to the
      // function, which answers with a page. Once hydrated, RJSF takes the submit and sends JSON instead.
      action={registrationEndpoint()}
      method="post"
      nameGenerator={fieldName}
      noHtml5Validate
      showErrorList={false}
      focusOnFirstError
      liveValidate={attempted ? 'onChange' : false}
      transformErrors={transformErrors}
      extraErrors={extraErrors}
      templates={templates}
      widgets={widgets}
      className="space-y-5"
      onChange={(event) => setFormData((event.formData ?? {}) as RegistrationData)}
      onError={onError}
      onSubmit={(event) => void onSubmit(event.formData)}
    >
      <NoScriptBranches
        schema={schema}
        uiSchema={ui.uiSchema}
        texts={form.noScript}
        parts={{ validator, templates, widgets, idPrefix, nameGenerator: fieldName }}
      />
      <Honeypot idPrefix={idPrefix} honeypotRef={honeypotRef} />
      {/* Which launch a post without JavaScript is for (the JSON body says it too). */}
      <input type="hidden" name="launch" value={launch} />
      <button
        type="submit"
        disabled={submitting}
        className="btn-primary w-full disabled:cursor-wait disabled:opacity-75"
      >
        {submitting ? ui.submittingLabel : ui.submitLabel}
      </button>
      <p className="text-center text-sm text-ink-muted">
        {form.consent}{' '}
        <a href={form.privacyLink.href} className="font-medium text-forest-900 underline underline-offset-4">
          {form.privacyLink.label}
        </a>
      </p>
    </Form>
  )
}
