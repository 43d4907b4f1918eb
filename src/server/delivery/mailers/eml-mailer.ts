import { open, readdir, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import type { Mailer } from '../mailer.ts'
import { ensurePrivateDir, privateFileMode } from '../../store/private-files.ts'
import { composeRawMessage } from './raw-message.ts'
import { toNodemailerMessage } from './smtp-mailer.ts'

/** A file name for a message id: the same message always lands in the same file, so a re-send overwrites. */
export function emlFileName(messageId: string): string {
  return `${messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9._-]+/g, '_')}.eml`
}

/** The message with every line break CRLF, as nodemailer's `newline: 'windows'` writes it (a lone CR stays). */
export function withCrlf(raw: Buffer): Buffer {
  return Buffer.from(raw.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1')
}

/**
 * `run` (a directory's fsync) shared by the callers that wait for it: a caller is answered by the first run that starts
 * after it asked (the one in flight may have begun before its rename), so sends at once share one run.
 */
export function sharedRun(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined
  let queued: Promise<void> | undefined
  const start = (): Promise<void> => {
    const current = run().finally(() => {
      if (running === current) running = undefined
    })
    running = current
    return current
  }
  return () => {
    if (!running) return start()
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined
        return start()
      })
    return queued
  }
}

/** The directory's entries flushed to disk. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

async function writeDurably(file: string, data: Uint8Array, syncDirectory: () => Promise<void>): Promise<void> {
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
  await syncDirectory()
}

/**
 * "Sends" notifications by writing each as an RFC 822 .eml file into `dir` (DATA_DIR/outbox): the default when
 * no SMTP_URL is set, so a fresh install loses nothing and a person can open the files in any mail program.
 */
export function createEmlMailer(options: { dir: string; from: string }): Mailer {
  ensurePrivateDir(options.dir)
  const syncDirectoryShared = sharedRun(() => syncDirectory(options.dir))
  return {
    async send(mail) {
      // Composed as the SMTP mailer composes it (raw-message.ts), every line ending CRLF as a mail program expects.
      const { raw } = await composeRawMessage(toNodemailerMessage(mail, options.from))
      await writeDurably(path.join(options.dir, emlFileName(mail.messageId)), withCrlf(raw), syncDirectoryShared)
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
