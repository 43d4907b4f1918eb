import type { PageConfig } from './page-config.ts'
import type { Phase } from './phases.ts'

/**
 * A config as one of its phases shows it: the phase's changes laid over the shared config, field by field (a list,
 * such as paragraphs, is replaced whole). Used by the build (each phase's pages) and, for the reply, by the function.
 */

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** `base` with `change` laid over it: objects merged field by field, anything else (text, lists) replaced. */
export function withChanges<T>(base: T, change: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(change)) return (change === undefined ? base : change) as T
  const out: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(change)) if (value !== undefined) out[key] = withChanges(out[key], value)
  return out as T
}

/** The config a phase's pages are built from: no `phases`, and the phase's banner when it has one. */
export type PhasedConfig = Omit<PageConfig, 'phases'> & { banner?: string }

/** The phase of that name in the config, if any. */
export function phaseNamed(config: Pick<PageConfig, 'phases'>, name: string | undefined): Phase | undefined {
  return config.phases?.list.find((phase) => phase.name === name)
}

/** What applying a phase does with the sections it hides: 'keep' leaves them in (the studio's canvas dims them). */
export type ApplyOptions = { hidden?: 'leave-out' | 'keep' }

/** The anchors of the sections phase `name` hides (none without such a phase). */
export function hiddenAnchors(config: Pick<PageConfig, 'phases'>, name: string | undefined): string[] {
  return phaseNamed(config, name)?.hide ?? []
}

/** `links` less those to a hidden section ("#anchor"). */
function withoutLinksTo<L extends { href: string }>(links: L[] | undefined, hidden: Set<string>): L[] | undefined {
  return links?.filter((link) => !(link.href.startsWith('#') && hidden.has(link.href.slice(1))))
}

/**
 * The config as phase `name` shows it (the changes of a hero and a registration section go to the page's first
 * section of that type; the sections it hides are left out, with their links in the header and footer). No such
 * phase, or a config without phases: the shared config as it is.
 */
export function applyPhase(config: PageConfig, name: string | undefined, options: ApplyOptions = {}): PhasedConfig {
  const { phases: _phases, ...shared } = config
  const phase = phaseNamed(config, name)
  if (!phase) return shared
  const changed = new Set<string>()
  const sections = shared.sections.map((section) => {
    const change =
      section.type === 'hero' ? phase.hero : section.type === 'registration' ? phase.registration : undefined
    if (!change || changed.has(section.type)) return section
    changed.add(section.type)
    return withChanges(section, change)
  })
  const hidden = new Set(options.hidden === 'keep' ? [] : (phase.hide ?? []))
  const header = withChanges(shared.header, phase.header)
  const footerLinks = withoutLinksTo(shared.footer.links, hidden)
  return {
    ...shared,
    header: { ...header, links: withoutLinksTo(header.links, hidden)! },
    ...(footerLinks ? { footer: { ...shared.footer, links: footerLinks } } : {}),
    sections: sections.filter((section) => section.anchor === undefined || !hidden.has(section.anchor)),
    modal: withChanges(shared.modal, phase.modal),
    form: withChanges(shared.form, phase.form),
    ...(shared.reply ? { reply: withChanges(shared.reply, phase.reply) } : {}),
    ...(phase.banner ? { banner: phase.banner } : {}),
  }
}
