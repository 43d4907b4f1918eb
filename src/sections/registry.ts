import type { ComponentType } from 'react'
import type { SectionType } from '../../schema/sections.ts'
import { Checklist } from './Checklist.tsx'
import { Contact } from './Contact.tsx'
import { DriveTimes } from './DriveTimes.tsx'
import { Feature } from './Feature.tsx'
import { Hero } from './Hero.tsx'
import { Highlights } from './Highlights.tsx'
import { HomeTypes } from './HomeTypes.tsx'
import { Registration } from './Registration.tsx'
import type { SectionComponentProps } from '../ui/section-props.ts'

/** One component per section type; a type in the schema without a component here fails `tsc`. */
export const sectionRegistry: { [K in SectionType]: ComponentType<SectionComponentProps<K>> } = {
  hero: Hero,
  feature: Feature,
  'home-types': HomeTypes,
  'drive-times': DriveTimes,
  checklist: Checklist,
  highlights: Highlights,
  registration: Registration,
  contact: Contact,
}
