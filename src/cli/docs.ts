import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { pageConfigSchema } from '../../schema/page-config.ts'
import { sectionSchemas } from '../../schema/sections.ts'

type Node = {
  title?: string
  description?: string
  type?: string | string[]
  const?: unknown
  enum?: readonly unknown[]
  default?: unknown
  examples?: readonly unknown[]
  format?: string
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
  properties?: Record<string, Node>
  required?: readonly string[]
  items?: Node
  additionalProperties?: boolean | Node
}

/** Where the generated reference lives. */
export const configReferencePath = fileURLToPath(new URL('../../docs/config-reference.md', import.meta.url))

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')
const code = (value: unknown): string => `\`${JSON.stringify(value)}\``

function kindOf(node: Node): string {
  if (node.const !== undefined) return `always ${code(node.const)}`
  if (node.enum) return `one of ${node.enum.map(code).join(', ')}`
  switch (Array.isArray(node.type) ? node.type[0] : node.type) {
    case 'string':
      return node.format === 'email' ? 'e-mail address' : node.format === 'uri' ? 'web address' : 'text'
    case 'integer':
      return 'whole number'
    case 'number':
      return 'number'
    case 'boolean':
      return '`true` or `false`'
    case 'array':
      return node.items?.type === 'object'
        ? `list of ${(node.items.title ?? 'groups').toLowerCase()}s`
        : 'list of texts'
    case 'object':
      return 'group'
    default:
      return 'any'
  }
}

function limitsOf(node: Node): string[] {
  const out: string[] = []
  if (node.minLength !== undefined && node.minLength > 1) out.push(`at least ${node.minLength} characters`)
  if (node.minLength === 1) out.push('not empty')
  if (node.maxLength !== undefined) out.push(`at most ${node.maxLength} characters`)
  if (node.minimum !== undefined) out.push(`at least ${node.minimum}`)
  if (node.maximum !== undefined) out.push(`at most ${node.maximum}`)
  if (node.minItems !== undefined) out.push(`at least ${node.minItems} ${node.minItems === 1 ? 'entry' : 'entries'}`)
  if (node.maxItems !== undefined) out.push(`at most ${node.maxItems} entries`)
  return out
}

function describe(node: Node): string {
  const parts: string[] = []
  if (node.title) parts.push(`**${node.title}.**`)
  if (node.description) parts.push(node.description)
  const limits = limitsOf(node)
  if (limits.length) parts.push(`(${limits.join(', ')})`)
  if (node.default !== undefined) parts.push(`Default: ${code(node.default)}.`)
  if (node.examples?.length) parts.push(`Example: ${node.examples.map(code).join(', ')}.`)
  return cell(parts.join(' '))
}

/** Table rows for each field under `node`, nested groups and list items flattened into dotted paths. */
function rows(node: Node, prefix = ''): string[] {
  const out: string[] = []
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const field = `${prefix}${name}`
    const required = node.required?.includes(name) ? 'yes' : ''
    out.push(`| \`${field}\` | ${required} | ${kindOf(child)} | ${describe(child)} |`)
    if (child.properties) out.push(...rows(child, `${field}.`))
    if (child.items?.properties) out.push(...rows(child.items, `${field}[].`))
  }
  return out
}

function table(node: Node, prefix = ''): string {
  return ['| Field | Required | Kind | What it is |', '|---|---|---|---|', ...rows(node, prefix)].join('\n')
}

/** The whole reference, as Markdown, from the schema. */
export function configReferenceMarkdown(): string {
  const schema = pageConfigSchema as unknown as Node
  const top = Object.entries(schema.properties ?? {}).filter(([name]) => name !== '$schema')
  const out: string[] = [
    '# page.config.json reference',
    '',
    '<!-- Generated from schema/*.ts by `npm run docs`. Do not edit by hand: change the schema, then run npm run docs. -->',
    '',
    `${schema.description ?? ''} Every field below is also shown by the editor when you hover over it in page.config.json.`,
    '',
    'How to read the tables: **Field** is the name to write (a dot means "inside", `[]` means "each entry of the list");',
    '**Required** says whether it must be there; **Kind** is what to write: text goes in "double quotes", numbers and',
    '`true`/`false` do not. See docs/editing-guide.md for how to make changes safely.',
    '',
    '## Contents',
    '',
    ...top.flatMap(([name, node]) => [
      `- [\`${name}\`: ${node.title ?? name}](#${name.toLowerCase()})`,
      ...(name === 'sections'
        ? Object.entries(sectionSchemas).map(
            ([type, section]) => `  - [\`${type}\`: ${section.title}](#section-type-${type})`,
          )
        : []),
    ]),
    '',
  ]
  for (const [name, node] of top) {
    out.push(
      `## ${name}`,
      '',
      `**${node.title ?? name}.** ${node.description ?? ''}${schema.required?.includes(name) ? ' Required.' : ''}`,
      '',
    )
    if (name === 'sections') {
      out.push(
        'A list of sections, shown in the order written. Each section is a group with a `"type"`; the type decides which',
        `other fields it takes. The types are: ${Object.keys(sectionSchemas)
          .map((t) => `\`${t}\``)
          .join(', ')}.`,
        '',
      )
      for (const [type, section] of Object.entries(sectionSchemas) as [string, Node][]) {
        out.push(
          `### Section type: ${type}`,
          '',
          `**${section.title}.** ${section.description ?? ''}`,
          '',
          table(section),
          '',
        )
      }
      continue
    }
    out.push(table(node), '')
  }
  return `${out.join('\n').trimEnd()}\n`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(path.dirname(configReferencePath), { recursive: true })
  writeFileSync(configReferencePath, configReferenceMarkdown())
  console.log(`Wrote ${path.relative(process.cwd(), configReferencePath)}`)
}
