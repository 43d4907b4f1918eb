import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { compileSchemaValidatorsCode } from '@rjsf/validator-ajv8/compileSchemaValidators'
import { hashForSchema, type RJSFSchema } from '@rjsf/utils'
import type { FormConfig, FormUi } from '../../schema/form-config.ts'
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

/** Every "if" schema in the form schema, at any depth (conditional fields: if/then/else, also inside allOf). */
function conditionSchemas(node: unknown, found: RJSFSchema[] = []): RJSFSchema[] {
  if (Array.isArray(node)) for (const item of node) conditionSchemas(item, found)
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'if' && value && typeof value === 'object' && !Array.isArray(value)) found.push(value as RJSFSchema)
      conditionSchemas(value, found)
    }
  }
  return found
}

/**
 * Most distinct forms a process keeps compiled (a build of twenty launches has a handful; the studio's drafts more).
 */
const keptForms = 50

/** `map`'s entry for `key`, made by `make` when missing; the oldest entry goes once there are more than `keptForms`. */
function remembered<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key)
  if (value === undefined) {
    value = make()
    if (map.size >= keptForms) map.delete(map.keys().next().value!)
    map.set(key, value)
  }
  return value
}

// Ajv's standalone code of each distinct browser schema (tens of milliseconds each): every phase of a launch, and
// every launch with the same form, shares one compile; only the form's texts (formUi) differ between them.
const compiledSchemas = new Map<string, string>()

/**
 * Compiles the config's form schema into an ES module: Ajv standalone code (no `new Function` at run time,
 * so no CSP 'unsafe-eval'), exporting `validators` (the schema's validate function by its $id, and one for each
 * if/then condition by the hash RJSF looks it up by), `formSchema` and `formUi`. The same schema is compiled once a
 * process.
 */
export function compileFormValidatorModule(form: Pick<FormConfig, 'schema'> & FormUi): string {
  const schema = browserFormSchema(form)
  const compiled = remembered(compiledSchemas, JSON.stringify(schema), () => compileSchemaModule(schema))
  return [
    compiled,
    `export const formUi = ${JSON.stringify({ uiSchema: form.uiSchema, messages: form.messages, submitLabel: form.submitLabel, submittingLabel: form.submittingLabel })};`,
  ].join('\n')
}

/** The module's part made from the schema alone: Ajv's code, `formSchema` and `validators`. */
function compileSchemaModule(schema: RJSFSchema): string {
  // RJSF looks a condition's validator up by the condition's hash, which may start with a digit: not an export name.
  const conditions = new Map(conditionSchemas(schema).map((condition) => [hashForSchema(condition), condition]))
  const code = compileSchemaValidatorsCode(schema, {
    ajvOptionsOverrides: { ...registrationAjvOptions, code: { esm: true, lines: false } },
    // RJSF decides which if/then branch to show by validating the "if" part alone, looked up by its hash; its schema
    // parser takes both branches without ever asking, so those validators would be missing ("No precompiled validator
    // function was found"). Compile each "if" under an id of its own; `validators` maps RJSF's hash to it.
    extenderFn: (ajv) => {
      addPlainTextKeyword(ajv)
      for (const [hash, condition] of conditions) ajv.addSchema({ ...condition, $id: `condition_${hash}` })
      // The parser's resolved branches are added under their hashes, and one that starts with a digit is no export
      // name (Ajv's standalone code refuses the whole module). The browser looks up only the form and the conditions.
      for (const id of Object.keys((ajv as unknown as { schemas: Record<string, unknown> }).schemas))
        if (/^[0-9]/.test(id)) ajv.removeSchema(id)
      return ajv
    },
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
  return [
    imports.join('\n'),
    body.replace(/^"use strict";/, ''),
    interop,
    `export const formSchema = ${JSON.stringify(schema)};`,
    `export const validators = { ${[`${JSON.stringify(formSchemaId)}: ${formSchemaId}`, ...[...conditions.keys()].map((hash) => `${JSON.stringify(hash)}: condition_${hash}`)].join(', ')} };`,
  ].join('\n')
}

/**
 * The form's validator module as one self-contained, minified ES module (Ajv's runtime helpers bundled in): what a
 * launch's page loads as its own file (the page code is shared) and the studio's preview loads for a draft.
 */
export function bundleFormValidatorModule(form: Pick<FormConfig, 'schema'> & FormUi): Promise<string> {
  const code = compileFormValidatorModule(form)
  const bundled = remembered(bundledModules, code, () => bundleModule(code))
  bundled.catch(() => bundledModules.delete(code))
  return bundled
}

// The bundled module of each distinct module text: phases and launches with the same form and texts share one file.
const bundledModules = new Map<string, Promise<string>>()

async function bundleModule(code: string): Promise<string> {
  const { build } = await import('esbuild')
  const result = await build({
    stdin: {
      contents: code,
      resolveDir: path.dirname(fileURLToPath(import.meta.url)),
      loader: 'js',
      sourcefile: 'form-validator.js',
    },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}
