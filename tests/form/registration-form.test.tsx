// @vitest-environment happy-dom
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { RJSFSchema } from '@rjsf/utils'
import type { ValidatorFunctions } from '@rjsf/validator-ajv8'
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { FormConfig, FormUi } from '../../schema/form-config.ts'
import { compileFormValidatorModule } from '../../src/build/compile-form-validator.ts'
import { RegistrationForm } from '../../src/form/RegistrationForm.tsx'
import { createRegistrationStore, RegistrationProvider } from '../../src/form/registration-state.tsx'

// The form component takes its schema, layout, messages and validator as props: a two-field form of its own here.
const form = {
  schema: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Your name', maxLength: 5 },
      town: { type: 'string', title: 'Town' },
      realtor: { type: 'string', title: 'With a realtor?', enum: ['yes', 'no'] },
    },
    required: ['name', 'realtor'],
  },
  uiSchema: { 'ui:order': ['town', 'name', 'realtor'], realtor: { 'ui:widget': 'radio' } },
  messages: {
    name: { required: 'Tell us your name', maxLength: 'Five letters at most' },
    realtor: { required: 'Choose one' },
  },
  submitLabel: 'Join',
  submittingLabel: 'Joining…',
  consent: 'We will write to you.',
  toasts: { success: { title: 'Done', description: 'Thanks.' }, error: { title: 'Oops', description: 'Again.' } },
} as unknown as FormConfig

let compiled: { validators: ValidatorFunctions; formSchema: RJSFSchema; formUi: FormUi }

beforeAll(async () => {
  const dir = path.resolve('node_modules/.cache/tests')
  mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `registration-form-${process.pid}.mjs`)
  writeFileSync(file, compileFormValidatorModule(form))
  compiled = await import(pathToFileURL(file).href)
})

afterEach(cleanup)

function renderForm() {
  return render(
    <RegistrationProvider
      store={createRegistrationStore({
        form: { consent: form.consent, toasts: form.toasts, privacyLink: { label: 'Our privacy', href: '/privacy' } },
        launch: 'bramblewood-crossing',
      })}
    >
      <RegistrationForm
        idPrefix="t"
        schema={compiled.formSchema}
        ui={compiled.formUi}
        validators={compiled.validators}
      />
    </RegistrationProvider>,
  )
}

describe('RegistrationForm', () => {
  it('renders the fields, order, button and consent its props give it, the privacy link beside the consent', () => {
    renderForm()
    const labels = screen.getAllByText(/^(Town|Your name)/).map((label) => label.textContent)
    expect(labels).toEqual(['Town', 'Your name'])
    expect(screen.getByRole('button', { name: 'Join' })).toBeTruthy()
    const consent = screen.getByText('We will write to you.', { exact: false })
    expect(consent.textContent).toBe('We will write to you. Our privacy')
    const link = screen.getByRole('link', { name: 'Our privacy' })
    expect(consent.contains(link)).toBe(true)
    expect(link.getAttribute('href')).toBe('/privacy')
  })

  it('judges with the given validator and shows the given messages under the field', async () => {
    renderForm()
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Join' })))
    expect(screen.getByText('Tell us your name')).toBeTruthy()
    await act(async () => fireEvent.change(screen.getByLabelText(/Your name/), { target: { value: 'Alexandra' } }))
    expect(screen.getByText('Five letters at most')).toBeTruthy()
  })

  it('marks a Yes/No group invalid on its fieldset, where ARIA allows it, not on each radio', async () => {
    renderForm()
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Join' })))
    expect(screen.getByText('Choose one')).toBeTruthy()
    const group = screen.getByRole('group', { name: 'With a realtor?' })
    expect(group.getAttribute('aria-invalid')).toBe('true')
    const radios = screen.getAllByRole('radio')
    expect(radios).toHaveLength(2)
    for (const radio of radios) expect(radio.getAttribute('aria-invalid')).toBeNull()
  })
})
