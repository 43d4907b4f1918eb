import Form from '@rjsf/core'
import type { RJSFSchema, UiSchema, ValidatorType } from '@rjsf/utils'
import { useMemo } from 'react'
import type { FormPart } from './form-parts.ts'

/**
 * The form view judges nothing itself: the checker on the server finds the problems, in its words, for the whole
 * text. (RJSF's own Ajv validator compiles schemas with `new Function`, which the studio's CSP forbids; the part
 * schemas have no oneOf/anyOf for it to choose between.)
 */
const noValidation: ValidatorType = {
  validateFormData: () => ({ errors: [], errorSchema: {} }),
  isValid: () => true,
  rawValidation: () => ({}),
  toErrorList: () => [],
} as unknown as ValidatorType

/** The fields a person never changes in the form view: a section's type picks its schema. */
function uiSchemaOf(schema: RJSFSchema): UiSchema {
  const ui: UiSchema = { 'ui:submitButtonOptions': { norender: true } }
  const properties = (schema.properties ?? {}) as Record<string, RJSFSchema>
  for (const [key, property] of Object.entries(properties)) {
    if (property.const !== undefined) ui[key] = { 'ui:widget': 'hidden' }
    else if (
      property.type === 'string' &&
      (property.maxLength === undefined || property.maxLength > 160) &&
      /intro|body|text|description|consent|note/i.test(key)
    ) {
      ui[key] = { 'ui:widget': 'textarea', 'ui:options': { rows: 3 } }
    }
  }
  return ui
}

type Props = { part: FormPart; value: unknown; onChange: (value: unknown) => void; idPrefix: string }

/** The part of the config under the cursor as a form (react-jsonschema-form, generated from the page-config schema). */
export function FormView({ part, value, onChange, idPrefix }: Props) {
  // The part's name is the view's heading already; the form starts with its fields.
  const schema = useMemo(() => ({ ...(part.schema as RJSFSchema), title: '' }), [part.schema])
  const uiSchema = useMemo(() => uiSchemaOf(schema), [schema])
  return (
    <Form
      schema={schema}
      uiSchema={uiSchema}
      formData={value}
      validator={noValidation}
      idPrefix={idPrefix}
      noHtml5Validate
      showErrorList={false}
      liveValidate={false}
      experimental_defaultFormStateBehavior={{
        emptyObjectFields: 'skipDefaults',
        arrayMinItems: { populate: 'never' },
      }}
      onChange={(event) => onChange(event.formData)}
    />
  )
}
