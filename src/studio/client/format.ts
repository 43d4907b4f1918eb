/** A moment as a person reads it: "25 Nov, 14:05" in their own time zone. */
export function formatMoment(at: string | number | Date): string {
  const date = new Date(at)
  if (Number.isNaN(date.getTime())) return String(at)
  return date.toLocaleString([], { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' })
}

/** "1 problem", "3 problems". */
export function countProblems(n: number): string {
  return n === 1 ? '1 problem' : `${n} problems`
}
