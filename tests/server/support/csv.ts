/** An RFC 4180 reader, strict about CRLF record ends, to check what a spreadsheet would see. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let i = 0
  let quoted = false
  while (i < text.length) {
    const ch = text[i]!
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"'
        i += 2
      } else if (ch === '"') {
        quoted = false
        i += 1
      } else {
        field += ch
        i += 1
      }
    } else if (ch === '"' && field === '') {
      quoted = true
      i += 1
    } else if (ch === ',') {
      row.push(field)
      field = ''
      i += 1
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field)
      rows.push(row)
      row = []
      field = ''
      i += 2
    } else if (ch === '\n' || ch === '\r') {
      throw new Error(`bare line break outside quotes at ${i}`)
    } else {
      field += ch
      i += 1
    }
  }
  if (field !== '' || row.length > 0) throw new Error('last record does not end with CRLF')
  return rows
}
