import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { pageConfigSchema } from '../../schema/page-config.ts'

/** The text of schema/page-config.schema.json, the copy editors use for autocompletion. */
export function pageConfigSchemaJson(): string {
  return `${JSON.stringify(pageConfigSchema, null, 2)}\n`
}

/** Where the emitted schema lives. */
export const emittedSchemaPath = fileURLToPath(new URL('../../schema/page-config.schema.json', import.meta.url))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(emittedSchemaPath, pageConfigSchemaJson())
  console.log(`Wrote ${emittedSchemaPath}`)
}
