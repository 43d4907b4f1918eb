import { describe, expect, it } from 'vitest'
import { checkLeftTexts } from '../../src/config/config-semantics.ts'

// The home types section's "left" words (issue 45): the number's place, and words no card would show.

const card = (models?: string[]) => ({ name: 'Maple', summary: 'A home.', image: {}, ...(models ? { models } : {}) })
const section = (leftTexts: unknown, cards = [card(['Maple'])]) => ({
  sections: [{ type: 'hero' }, { type: 'home-types', heading: 'Homes', cards, leftTexts }],
})

describe('checkLeftTexts', () => {
  it('passes words with {count} on a section whose cards count models, and a section without leftTexts', () => {
    expect(checkLeftTexts(section({ left: 'Only {count} to go', soldOut: 'All gone' }))).toEqual([])
    expect(checkLeftTexts({ sections: [{ type: 'home-types', cards: [card()] }] })).toEqual([])
  })

  it('names left words without {count}, with the path', () => {
    const [finding] = checkLeftTexts(section({ left: 'A few left' }))
    expect(finding).toMatchObject({ at: ['sections', 1, 'leftTexts', 'left'] })
    expect(finding!.fix).toContain('{count}')
  })

  it('names leftTexts that no card would show', () => {
    expect(checkLeftTexts(section({ soldOut: 'Gone' }, [card()]))).toMatchObject([{ at: ['sections', 1, 'leftTexts'] }])
  })
})
