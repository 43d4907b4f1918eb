import type { Site } from '../../schema/site.ts'
import type { SectionPropsByType, SectionType } from '../../schema/sections.ts'

/** What every section component receives besides its own config: the site-wide facts and the launch's slug. */
export type SharedProps = { site: Site; launch: string }

/** The props of the component for section type K. */
export type SectionComponentProps<K extends SectionType> = SectionPropsByType[K] & SharedProps

/** A section's background tone. */
export type Tone = 'light' | 'muted' | 'dark'
