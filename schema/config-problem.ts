/** One thing wrong with a page config: where (1-based line and column), what, and what to do. */
export type Problem = {
  file: string
  line: number
  column: number
  /** The JSON path, e.g. "sections[3].type"; "the file" for syntax errors and the whole document. */
  where: string
  /** What is wrong, in plain words. */
  message: string
  /** What to do about it. */
  fix: string
  /** The lines around the spot, numbered, with the spot marked by ^. */
  excerpt: string
}
