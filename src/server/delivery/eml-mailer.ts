import { open, readdir, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import nodemailer from 'nodemailer'
import type { Mailer } from './mailer.ts'
import { ensurePrivateDir, privateFileMode } from '../store/private-files.ts'
import { toNodemailerMessage } from './smtp-mailer.ts'

/** A file name for a message id: the same message always lands in the same file, so a re-send overwrites. */
export function emlFileName(messageId: string): string {
  return `${messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9._-]+/g, '_')}.eml`
}

async function writeDurably(file: string, data: Uint8Array): Promise<void> {
  const temp = `${file}.${process.pid}.tmp`
  // Owner-only from the first byte: a message holds the visitor's name, e-mail and phone.
  const handle = await open(temp, 'w', privateFileMode)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(temp, file)
  // The rename is only durable once the directory entry is flushed too.
  const dir = await open(path.dirname(file), 'r')
  try {
    await dir.sync()
  } finally {
    await dir.close()
  }
}

/**
 * "Sends" notifications by writing each as an RFC 822 .eml file into `dir` (DATA_DIR/outbox): the default when
 * no SMTP_URL is set, so a fresh install loses nothing and a person can open the files in any mail program.
 */
export function createEmlMailer(options: { dir: string; from: string }): Mailer {
  ensurePrivateDir(options.dir)
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' })
  return {
    async send(mail) {
      const info = await transport.sendMail(toNodemailerMessage(mail, options.from))
      await writeDurably(path.join(options.dir, emlFileName(mail.messageId)), info.message as Buffer)
    },
  }
}

/**
 * Deletes the .eml copies of these messages from `dir` and, given an address, any other .eml or half-written file
 * that names it (a copy left by an interrupted erasure). Returns how many files were deleted.
 */
export async function removeEmlCopies(dir: string, messageIds: string[], address?: string): Promise<number> {
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return 0
  }
  const wanted = new Set(messageIds.map(emlFileName))
  const needle = address?.trim().toLowerCase()
  let removed = 0
  for (const name of names) {
    const file = path.join(dir, name)
    let match = wanted.has(name) || [...wanted].some((w) => name.startsWith(`${w}.`) && name.endsWith('.tmp'))
    if (!match && needle && (name.endsWith('.eml') || name.endsWith('.tmp'))) {
      match = (await readFile(file, 'utf8').catch(() => '')).toLowerCase().includes(needle)
    }
    if (match) {
      await rm(file, { force: true })
      removed += 1
    }
  }
  return removed
}
