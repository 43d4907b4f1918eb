import { readFileSync } from 'node:fs'
import * as prettier from 'prettier'

// `npm test`'s layout step: every file Prettier holds (its .prettierignore says which) must be as Prettier writes it.
// Prettier's own --check names the file only; this names the first line that differs, so the fix is found at once.

/** The files Prettier would change, each with the first line that differs from Prettier's layout. */
export async function unformattedFiles(files: string[]): Promise<Array<{ file: string; line: number }>> {
  const found: Array<{ file: string; line: number }> = []
  for (const file of files) {
    const info = await prettier.getFileInfo(file, { ignorePath: '.prettierignore' })
    if (info.ignored || !info.inferredParser) continue
    const text = readFileSync(file, 'utf8')
    const options = (await prettier.resolveConfig(file)) ?? {}
    const formatted = await prettier.format(text, { ...options, filepath: file })
    if (formatted !== text) found.push({ file, line: firstDifferentLine(text, formatted) })
  }
  return found
}

/** The 1-based number of the first line where two texts differ. */
export function firstDifferentLine(a: string, b: string): number {
  const left = a.split('\n')
  const right = b.split('\n')
  let index = 0
  while (index < left.length && left[index] === right[index]) index++
  return index + 1
}
