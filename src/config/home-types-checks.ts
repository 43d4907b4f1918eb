import type { Finding } from './describe.ts'

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A home types section's "left" words (issue 45): leftTexts.left must say where the number goes ({count}), or every
 * card would show the same words whatever is left; leftTexts with no card counting models would never be shown.
 */
export function checkLeftTexts(data: Json): Finding[] {
  const sections = Array.isArray(data.sections) ? data.sections : []
  const findings: Finding[] = []
  sections.forEach((section, i) => {
    if (!isObject(section) || section.type !== 'home-types' || !isObject(section.leftTexts)) return
    const left = section.leftTexts.left
    if (typeof left === 'string' && left.trim() !== '' && !left.includes('{count}'))
      findings.push({
        at: ['sections', i, 'leftTexts', 'left'],
        message: `"${left}" does not say where the number of lots left goes.`,
        fix: 'Write {count} where the number goes, e.g. "{count} left".',
      })
    const cards = Array.isArray(section.cards) ? section.cards : []
    if (!cards.some((card) => isObject(card) && Array.isArray(card.models)))
      findings.push({
        at: ['sections', i, 'leftTexts'],
        onKey: true,
        message: 'No card of this section counts models, so these words are never shown.',
        fix: 'Give a card the models it counts (e.g. "models": ["Maple", "Birch"]), or delete leftTexts.',
      })
  })
  return findings
}
