import type { SectionType } from '../../../../schema/sections.ts'

// A small drawing of each section type for the palette: grey bars for text, boxes for cards and pictures.

type Shape = { x: number; y: number; w: number; h: number; dark?: boolean }

const bar = (y: number, w = 60, x = 10): Shape => ({ x, y, w, h: 4 })
const box = (x: number, y: number, w: number, h: number, dark = false): Shape => ({ x, y, w, h, dark })

const drawings: Record<SectionType, Shape[]> = {
  hero: [box(0, 0, 120, 70, true), bar(20, 70), bar(30, 50), box(10, 45, 30, 10)],
  feature: [bar(12, 40), bar(22, 45), bar(30, 40), box(64, 10, 46, 50)],
  'home-types': [bar(8, 40), box(8, 20, 32, 42), box(44, 20, 32, 42), box(80, 20, 32, 42)],
  'drive-times': [bar(8, 40), bar(22, 90), bar(32, 90), bar(42, 90), bar(52, 90)],
  checklist: [bar(8, 40), box(10, 22, 6, 6, true), bar(23, 70, 22), box(10, 36, 6, 6, true), bar(37, 70, 22)],
  highlights: [bar(8, 40), box(10, 22, 46, 18), box(64, 22, 46, 18), box(10, 44, 46, 18), box(64, 44, 46, 18)],
  registration: [bar(10, 40), bar(20, 40), box(60, 8, 50, 12), box(60, 24, 50, 12), box(60, 44, 50, 14, true)],
  contact: [bar(8, 40), box(8, 20, 32, 40), box(44, 20, 32, 40), box(80, 20, 32, 40)],
}

/** The drawing of a section type (decorative: the choice's name and sentence say what it is). */
export function SectionPicture({ type }: { type: SectionType }) {
  return (
    <svg viewBox="0 0 120 70" width="120" height="70" aria-hidden="true" focusable="false" className="section-picture">
      <rect x="0" y="0" width="120" height="70" rx="4" fill="#f3f4f6" />
      {drawings[type].map((s, i) => (
        <rect key={i} x={s.x} y={s.y} width={s.w} height={s.h} rx="2" fill={s.dark ? '#1e3a8a' : '#9ca3af'} />
      ))}
    </svg>
  )
}
