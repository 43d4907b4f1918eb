import { compileSchemaValidatorsCode } from '@rjsf/validator-ajv8/compileSchemaValidators'
import type { RJSFSchema } from '@rjsf/utils'
import type { FormConfig, FormUi } from '../../schema/page-config.ts'
import { addPlainTextKeyword, registrationAjvOptions, withPlainTextRule } from '../../schema/registration-ajv.ts'

/** The $id the form schema is compiled under; the generated module exports its validator by this name. */
export const formSchemaId = 'registration'

/**
 * The form schema as the browser uses it: the config's with the shared plainText rule on its text fields, and the
 * $id the precompiled validator is keyed by.
 */
export function browserFormSchema(form: Pick<FormConfig, 'schema' | 'uiSchema'>): RJSFSchema {
  return { ...(withPlainTextRule(form.schema, form.uiSchema) as RJSFSchema), $id: formSchemaId }
}

/**
 * Compiles the config's form schema into an ES module: Ajv standalone code (no `new Function` at run time,
 * so no CSP 'unsafe-eval'), exporting `registration` (the validate function), `formSchema` and `formUi`.
 */
export function compileFormValidatorModule(form: Pick<FormConfig, 'schema'> & FormUi): string {
  const schema = browserFormSchema(form)
  const code = compileSchemaValidatorsCode(schema, {
    ajvOptionsOverrides: { ...registrationAjvOptions, code: { esm: true, lines: false } },
    extenderFn: addPlainTextKeyword,
  })
  // Ajv's ESM output still require()s its runtime helpers (e.g. ucs2length for maxLength); make them imports.
  const imports: string[] = []
  const body = code.replace(/require\("([^"]+)"\)/g, (_match, specifier: string) => {
    const name = `__ajvRuntime${imports.length}`
    // ES module resolution (Node, browsers) wants the file's extension; Ajv names its runtime files without.
    const file = /\.[cm]?js$/.test(specifier) ? specifier : `${specifier}.js`
    imports.push(`import * as ${name} from ${JSON.stringify(file)};`)
    return `__cjs(${name})`
  })
  const interop =
    'function __cjs(ns) { return ns && ns.default && typeof ns.default === "object" && "default" in ns.default ? ns.default : ns }'
  return [imports.join('\n'), body.replace(/^"use strict";/, ''), interop, `export const formSchema = ${JSON.stringify(schema)};`,
    `export const formUi = ${JSON.stringify({ uiSchema: form.uiSchema, messages: form.messages, submitLabel: form.submitLabel, submittingLabel: form.submittingLabel })};`,
  ].join('\n')
}
