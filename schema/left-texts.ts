/**
 * The words of a home types card's count of what is left (issue 45), when the section's `leftTexts` names none. A
 * module of its own: the page's count island reads these, and importing them from sections.ts would put every section's
 * schema in the page's first load.
 */
export const leftTextDefaults = { left: '{count} left', soldOut: 'Sold out' } as const
