// A worksheet's row as SQLite stores it: the statements and values both its writers use, the store's connection
// (sqlite-release.ts) and the writer thread (sqlite-writer.ts).
import type { NewWorksheet } from '../release.ts'

/** A worksheet's statements: the launch's next number, the row, each message. */
export const worksheetStatements = {
  next: 'SELECT coalesce(max(number), 0) + 1 AS next FROM worksheets WHERE launch = ?',
  insert: `INSERT INTO worksheets (launch, number, realtor_lead_id, realtor_email, client_name, client_email, client_phone,
       choices, deposit_accepted, notes, received_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
  queue: 'INSERT INTO outbox (lead_id, kind, recipient, mail, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)',
}

/** The insert's values but the number (the second): the launch first, as the number's statement takes it. */
export function worksheetValues(worksheet: NewWorksheet): [string, ...Array<string | number>] {
  return [
    worksheet.launch,
    worksheet.realtorLeadId,
    worksheet.realtorEmail,
    worksheet.clientName,
    worksheet.clientEmail,
    worksheet.clientPhone,
    JSON.stringify(worksheet.choices),
    worksheet.depositAccepted ? 1 : 0,
    worksheet.notes,
    worksheet.receivedAt,
  ]
}
