import type { Segment } from '../../../config/json-source.ts'
import { phaseSchema } from '../../../../schema/phases.ts'

// Where an edit made on the canvas goes: the base page, or the shown phase's own changes. The canvas shows a config
// with the phase laid over it (schema/phase-apply.ts: a phase's "hero" and "registration" change the page's first
// section of that type; "header" and "modal" their parts); an edit of a text a phase may change lands in that phase
// when the person chose the phase above the previews, or when the phase already changes that text.

/** The previews' phase: its name, and whether the person chose it (else it is the live one, shown by default). */
export type ShownPhase = { shown: string | undefined; chosen: boolean }

/** Where an edit lands and what the status line says of it. */
/** `cut`: how many steps of the edited text's path the target leaves out (a phase's list is written whole). */
export type EditTarget = { path: Segment[]; note: string; cut: number }

type Config = { sections?: { type?: string }[]; phases?: { list: { name: string }[] } }

type Props = { properties?: Record<string, Props>; type?: string }

/** Whether the phase schema lets a phase change the text at `rest` of its group `group`. */
function phaseMayChange(group: string, rest: Segment[]): boolean {
  let schema: Props | undefined = (phaseSchema.properties as Record<string, Props>)[group]
  for (const step of rest) {
    if (!schema) return false
    if (schema.type === 'array') return true
    schema = schema.properties?.[String(step)]
  }
  return schema !== undefined
}

/** The phase group and path in it of a shown text: a hero or registration (the first of its type), header, modal. */
function phaseGroupOf(config: Config, path: Segment[]): { group: string; rest: Segment[] } | undefined {
  const [top, index, ...rest] = path
  if (top === 'header' || top === 'modal') return { group: top, rest: path.slice(1) }
  if (top !== 'sections' || typeof index !== 'number') return undefined
  const type = config.sections?.[index]?.type
  if (type !== 'hero' && type !== 'registration') return undefined
  if (config.sections?.findIndex((s) => s.type === type) !== index) return undefined
  return { group: type, rest }
}

function valueAt(value: unknown, path: Segment[]): unknown {
  return path.reduce<unknown>(
    (node, step) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[String(step)] : undefined),
    value,
  )
}

/** Where an edit of the shown text at `path` (its path in the base config) lands, with the words that say so. */
export function targetOfEdit(config: unknown, path: Segment[], phase: ShownPhase): EditTarget {
  const typed = config as Config
  const phaseIndex = typed.phases?.list.findIndex((p) => p.name === phase.shown) ?? -1
  const where = phaseGroupOf(typed, path)
  if (phaseIndex < 0 || !where || !phaseMayChange(where.group, where.rest)) {
    const every = phaseIndex >= 0 ? ' It applies to every phase: phases cannot change this text.' : ''
    return { path, note: `Changed on the page.${every}`, cut: 0 }
  }
  // A list (the registration's points) is replaced whole by a phase: the edit writes the phase's whole list.
  const list = where.rest.findIndex((step) => typeof step === 'number')
  const kept = list >= 0 ? where.rest.slice(0, list) : where.rest
  const own = ['phases', 'list', phaseIndex, where.group, ...kept]
  const note = `Changed in the ${phase.shown} phase only (its own text); the base page is unchanged.`
  if (phase.chosen || valueAt(config, own) !== undefined)
    return { path: own, note, cut: where.rest.length - kept.length }
  return { path, note: 'Changed on the base page: every phase that does not change this text shows it.', cut: 0 }
}
