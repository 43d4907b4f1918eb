// The settings room (src/server/settings/): the reader every room's settings block goes through. A block
// (site/settings.ts, store/settings.ts, registration/settings.ts, delivery/settings.ts, leads-page/settings.ts)
// describes its environment variables as JSON Schema; this file checks them with Ajv (`useDefaults`,
// `coerceTypes`) and words each problem plainly. Pure functions, web-standard APIs only: the Deno entry runs it too.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv'
import { createRegistrationAjv, isEmailAddress } from '../../../schema/registration-ajv.ts'

/** Environment variables as a runtime hands them over. */
export type Env = Record<string, string | undefined>

/** Either complete settings, or every problem found. */
export type EnvResult<T> = { ok: true; config: T } | { ok: false; problems: string[] }

/**
 * One variable: a JSON Schema of its value plus three annotations for the problem message: `expected` (what a
 * good value is: "…, which is not an e-mail address"), `fix` (what to write) and `secret` (never print the value).
 * Values are strings, except `type: 'array'` (comma-separated) and `type: 'object'` (JSON).
 */
export type Variable = {
  description: string
  fix: string
  expected?: string
  secret?: true
  default?: unknown
  type: 'string' | 'integer' | 'number' | 'array' | 'object' | readonly ['boolean', 'integer']
  [keyword: string]: unknown
}

/** A key as the browser sends it: no spaces or line breaks (ANON_KEY, VITE_SUPABASE_ANON_KEY …). */
export const keySchema = { type: 'string', pattern: '^\\S+$' } as const

type ValueOf<V> = V extends { type: 'integer' | 'number' }
  ? number
  : V extends { type: 'array' }
    ? string[]
    : V extends { type: 'object' }
      ? Record<string, string>
      : V extends { type: readonly ['boolean', 'integer'] }
        ? boolean | number
        : string

/** Checked values of the variables `N` of `Vars`: present when set or defaulted. */
export type Values<Vars extends Record<string, Variable>, N extends keyof Vars> = { [K in N]?: ValueOf<Vars[K]> }

/** Which variables an entry reads, which it needs, and what it reads differently from the common description. */
export type Reading<N extends string> = {
  names: readonly N[]
  required?: readonly N[]
  /** Variables needed only when another is set, e.g. MAIL_FROM with SMTP_URL (draft-07 `dependencies`). */
  dependencies?: Partial<Record<N, readonly N[]>>
  changes?: Partial<Record<N, Partial<Variable> & { default?: unknown }>>
}

let ajv: Ajv | undefined

/** The registration form's Ajv and formats (so `email` means what it means in the form), plus the settings' own. */
function settingsAjv(): Ajv {
  if (ajv) return ajv
  ajv = createRegistrationAjv({
    allErrors: true,
    useDefaults: true,
    coerceTypes: true,
    strict: true,
    strictTypes: false,
  })
  for (const keyword of ['expected', 'fix', 'secret']) ajv.addKeyword({ keyword })
  const urlWith =
    (...protocols: string[]) =>
    (value: string) =>
      URL.canParse(value) &&
      protocols.includes(new URL(value).protocol) &&
      new URL(value).hostname !== '' &&
      !/\s/.test(value)
  ajv.addFormat('http-url', urlWith('https:', 'http:'))
  ajv.addFormat('smtp-url', urlWith('smtp:', 'smtps:'))
  ajv.addFormat('postgres-url', urlWith('postgres:', 'postgresql:'))
  ajv.addFormat(
    'origin',
    (value) => urlWith('https:', 'http:')(value) && new URL(value).origin === value.replace(/\/$/, ''),
  )
  ajv.addFormat(
    'mail-from',
    (value) => !/[\r\n]/.test(value) && isEmailAddress(/<([^<>]+)>$/.exec(value)?.[1] ?? value),
  )
  ajv.addFormat('time-zone', (value) => {
    try {
      new Intl.DateTimeFormat('en-CA', { timeZone: value })
      return true
    } catch {
      return false
    }
  })
  return ajv
}

const compiled = new Map<object, ValidateFunction>()

/** The schema of what one entry reads. */
function schemaOf<N extends string>(variables: Readonly<Record<N, Variable>>, reading: Reading<N>) {
  const properties = Object.fromEntries(
    reading.names.map((name) => {
      const variable: Record<string, unknown> = { ...variables[name], ...reading.changes?.[name] }
      if (variable.default === undefined) delete variable.default
      return [name, variable]
    }),
  )
  return { type: 'object', properties, required: reading.required ?? [], dependencies: reading.dependencies ?? {} }
}

/** Env strings to the values the schema describes: trimmed, empty as unset, lists split at commas, objects parsed. */
function prepare(
  env: Env,
  variables: Readonly<Record<string, Variable>>,
  names: readonly string[],
): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  for (const name of names) {
    const raw = env[name]?.trim()
    if (!raw) continue
    const { type } = variables[name]!
    if (type === 'array') {
      data[name] = raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    } else if (type === 'object') {
      try {
        data[name] = JSON.parse(raw) as unknown
      } catch {
        data[name] = raw
      }
    } else {
      data[name] = raw
    }
  }
  return data
}

/** One plain sentence for one Ajv error: the variable, its value (unless secret), what to write. */
function explain(error: ErrorObject, env: Env, variables: Record<string, Variable>): { name: string; text: string } {
  const params = error.params as { missingProperty?: string; property?: string }
  if (params.missingProperty !== undefined) {
    const name = params.missingProperty
    const because = error.keyword === 'dependencies' ? `${params.property} is set, so ` : ''
    return { name, text: `${name} is missing: ${because}${variables[name]!.fix}.` }
  }
  const [name = '', item] = error.instancePath.split('/').slice(1)
  const variable = variables[name]!
  const { fix, expected, secret } = variable
  const withDefault =
    variable.default === undefined || Array.isArray(variable.default)
      ? fix
      : `${fix} (default ${defaultWords(variable.default)})`
  if (item !== undefined) {
    const list = prepare(env, variables, [name])[name]
    const value = Array.isArray(list) ? String(list[Number(item)]) : ''
    return { name, text: `${name} has "${value}": ${fix}.` }
  }
  if (secret) return { name, text: `${name} is not ${expected ?? 'usable'}: ${fix}.` }
  const value = env[name]?.trim()
  return { name, text: `${name} is "${value}"${expected ? `, which is not ${expected}` : ''}: ${withDefault}.` }
}

/** A default as the message shows it: a number, a word or a flag as written, anything else as JSON. */
function defaultWords(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? String(value)
    : JSON.stringify(value)
}

/** Checks the variables one entry reads: defaults filled in, numbers and booleans coerced, every problem listed. */
export function check<Vars extends Record<string, Variable>, N extends keyof Vars & string>(
  env: Env,
  all: Vars,
  reading: Reading<N>,
): { values: Values<Vars, N>; problems: string[] } {
  let validate = compiled.get(reading)
  if (!validate) {
    validate = settingsAjv().compile(schemaOf(all, reading))
    compiled.set(reading, validate)
  }
  const data = prepare(env, all, reading.names)
  const variables = schemaOf(all, reading).properties as Record<string, Variable>
  const byName = new Map<string, string>()
  if (!validate(data)) {
    for (const error of validate.errors ?? []) {
      const { name, text } = explain(error, env, variables)
      const key = `${name}${error.instancePath}`
      if (!byName.has(key)) byName.set(key, text)
      // A value with a problem is no value: nothing is built from it.
      delete data[name]
    }
  }
  // In the order the variables are described, one problem per variable (or list item).
  const order = (key: string) => reading.names.indexOf(key.split('/')[0] as N)
  const problems = [...byName.entries()].sort(([a], [b]) => order(a) - order(b)).map(([, text]) => text)
  return { values: data as Values<Vars, N>, problems }
}
