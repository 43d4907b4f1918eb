import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  deleteSection,
  duplicateSection,
  insertSection,
  moveSection,
  setValueAt,
} from '../../../src/studio/client/canvas/canvas-edits.ts'
import { sectionDefaults } from '../../../src/studio/client/canvas/section-defaults.ts'
import { hiddenIn, withSectionHidden } from '../../../src/studio/client/canvas/phase-hide.ts'
import { targetOfEdit } from '../../../src/studio/client/canvas/phase-target.ts'

const text = readFileSync('page.config.json', 'utf8')
type Config = { sections: Record<string, unknown>[]; phases: { list: Record<string, unknown>[] } }
const original = JSON.parse(text) as Config

describe('the canvas edits of the text', () => {
  it('moves a section, keeping every byte of each section, and moves it back to the same text', () => {
    const moved = moveSection(text, 2, 1)
    const config = JSON.parse(moved) as Config
    expect(config.sections[1]).toEqual(original.sections[2])
    expect(config.sections[2]).toEqual(original.sections[1])
    expect(moved.length).toBe(text.length)
    expect(moveSection(moved, 1, 2)).toBe(text)
  })

  it('duplicates, deletes and inserts sections in the layout of the others', () => {
    expect(deleteSection(duplicateSection(text, 3), 3)).toBe(text)
    const inserted = insertSection(text, 2, { type: 'checklist', heading: 'H', items: [{ title: 'a', text: 'b' }] })
    expect((JSON.parse(inserted) as Config).sections[2]!.type).toBe('checklist')
    expect(inserted).toContain('\n    {\n      "type": "checklist",\n      "heading": "H",')
    expect(deleteSection(inserted, 2)).toBe(text)
  })

  it('sets a value where there is none yet, adding the group it belongs to', () => {
    const set = setValueAt(text, ['phases', 'list', 1, 'hero', 'eyebrow'], '"Now"')
    expect((JSON.parse(set) as Config).phases.list[1]).toEqual({ name: 'vip', hero: { eyebrow: 'Now' } })
  })
})

describe('sectionDefaults', () => {
  it('gives a Checklist a heading and an item from its schema', () => {
    const section = sectionDefaults('checklist', original) as { type: string; heading: string; items: unknown[] }
    expect(section.type).toBe('checklist')
    expect(section.heading.length).toBeGreaterThan(0)
    expect(section.items.length).toBeGreaterThan(0)
  })
})

describe('targetOfEdit', () => {
  const phases = { shown: 'public', chosen: true }
  it('sends an edit of the hero eyebrow, with a phase chosen, to that phase', () => {
    const target = targetOfEdit(original, ['sections', 0, 'eyebrow'], phases)
    expect(target.path).toEqual(['phases', 'list', 2, 'hero', 'eyebrow'])
  })
  it('sends an edit of the hero heading to the base page, for every phase', () => {
    const target = targetOfEdit(original, ['sections', 0, 'heading'], phases)
    expect(target.path).toEqual(['sections', 0, 'heading'])
    expect(target.note).toMatch(/every phase/)
  })
})

describe('withSectionHidden', () => {
  const publicIndex = original.phases.list.findIndex((p) => p.name === 'public')

  it('writes the section anchor into the phase\'s "hide", and showing it again takes the list away', () => {
    const index = original.sections.findIndex((s) => s.anchor === 'overview')
    const hidden = withSectionHidden(text, index, 'public', true)
    expect(hidden.anchor).toBe('overview')
    const config = JSON.parse(hidden.text) as Config
    expect(config.phases.list[publicIndex]!.hide).toEqual(['overview'])
    expect({ ...config, phases: { ...config.phases, list: original.phases.list } }).toEqual(original)
    expect(hiddenIn(config, 'public')).toEqual(['overview'])
    expect(hiddenIn(config, 'vip')).toEqual([])
    expect(withSectionHidden(hidden.text, index, 'public', false).text).toBe(text)
  })

  it('gives a section without an anchor one first, unique on the page', () => {
    const bare = text.replace('"anchor": "transit",', '')
    const index = original.sections.findIndex((s) => s.anchor === 'transit')
    const hidden = withSectionHidden(bare, index, 'public', true)
    expect(hidden.anchor).toBe('feature')
    const config = JSON.parse(hidden.text) as Config
    expect(config.sections[index]!.anchor).toBe('feature')
    expect(config.phases.list[publicIndex]!.hide).toEqual(['feature'])
  })
})
