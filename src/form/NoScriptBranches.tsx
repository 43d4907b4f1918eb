import Form, { type FormProps } from '@rjsf/core'
import type { RJSFSchema, UiSchema } from '@rjsf/utils'
import { formBranches } from '../../schema/form-branches.ts'
import type { FormConfig } from '../../schema/form-config.ts'
import { noScriptPageDefaults } from '../../schema/no-script-pages.ts'

/** What the branches are drawn with: the registration form's own parts, so they look and read the same. */
type BranchParts = Pick<FormProps, 'validator' | 'templates' | 'widgets' | 'idPrefix' | 'nameGenerator'>

/** A branch's uiSchema: the form's entries for its fields (no ui:order, which names the root's fields). */
function branchUiSchema(uiSchema: UiSchema | undefined, fields: string[]): UiSchema {
  const own = uiSchema ?? {}
  return Object.fromEntries(fields.filter((field) => field in own).map((field) => [field, own[field]]))
}

/**
 * For a browser without JavaScript: the fields the form asks for only after an answer (a realtor's brokerage …), each
 * group under its heading, so a visitor whose page cannot show them on that answer can fill them in the one send.
 * None is required here (the server requires them only with that answer). Inside <noscript>: with JavaScript the
 * browser never parses them (and React never renders them there), so the live form shows each after its answer.
 */
export function NoScriptBranches({
  schema,
  uiSchema,
  texts,
  parts,
}: {
  schema: RJSFSchema
  uiSchema: UiSchema | undefined
  texts: FormConfig['noScript']
  parts: BranchParts
}) {
  const branches = formBranches(schema)
  if (branches.length === 0) return null
  const headingOf = (condition: string | undefined) =>
    (condition === undefined ? undefined : texts?.branchHeadings?.[condition]) ??
    texts?.otherFieldsHeading ??
    noScriptPageDefaults.otherFieldsHeading
  return (
    <noscript>
      {branches.map((branch, index) => (
        <fieldset key={branch.condition ?? index} className="mt-2 space-y-4 border-t border-ink/15 pt-4">
          <legend className="text-base font-semibold text-ink">{headingOf(branch.condition)}</legend>
          <Form
            {...parts}
            tagName="div"
            schema={{ type: 'object', properties: branch.properties }}
            uiSchema={branchUiSchema(uiSchema, Object.keys(branch.properties))}
            showErrorList={false}
            noHtml5Validate
          >
            {/* No button of its own: the registration form's sends these fields with the rest. */}
            <></>
          </Form>
        </fieldset>
      ))}
    </noscript>
  )
}
