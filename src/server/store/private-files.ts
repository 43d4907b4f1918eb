import { createHmac, randomBytes } from 'node:crypto'
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'

/**
 * DATA_DIR holds people's names, e-mail addresses and phone numbers: only the account the server runs as may read
 * it. Folders are 0700 and files 0600, whatever the umask, and a folder made by an older version is tightened at
 * start.
 */

/** Owner-only folder mode. */
export const privateDirMode = 0o700
/** Owner-only file mode. */
export const privateFileMode = 0o600

/** Creates `dir` (and missing parents) owner-only; an existing `dir` is made owner-only too. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: privateDirMode })
  chmodSync(dir, privateDirMode)
}

/**
 * Creates `file` empty and owner-only if it is missing, or makes it owner-only. For SQLite: it gives its -wal,
 * -shm and journal files the mode of the database file, so creating that one 0600 first covers them all.
 */
export function ensurePrivateFile(file: string): void {
  // Opened only to create it: closing any descriptor of a file drops every POSIX lock this process holds on it,
  // so an existing database (perhaps open in this process) is never opened here.
  try {
    closeSync(openSync(file, 'wx', privateFileMode))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  chmodSync(file, privateFileMode)
}

/**
 * Makes everything under `dir` owner-only: folders 0700, files 0600. Symlinks are left alone (chmod would follow
 * them out of the folder).
 */
export function tightenPrivateTree(dir: string): void {
  chmodSync(dir, privateDirMode)
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) tightenPrivateTree(full)
    else if (entry.isFile() && (lstatSync(full).mode & 0o777) !== privateFileMode) chmodSync(full, privateFileMode)
  }
}

/**
 * The secret in `file` (e.g. DATA_DIR/suppression.key), made on first use: 32 random bytes as hex, owner-only.
 * Losing it only means earlier suppressions no longer match; never copy it next to a backup of the leads.
 */
export function readOrCreateSecret(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  // wx: of two processes making it at once, one wins and the other reads the winner's.
  try {
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: privateFileMode, flag: 'wx' })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  return readFileSync(file, 'utf8').trim()
}

/**
 * HMAC-SHA256 of `message` with `secret`, on this thread (node:crypto): what the Node server signs unsubscribe links
 * and makes suppression keys with. Web Crypto gives the same bytes, but each call is a job on another thread and a
 * promise: about 30 µs of CPU where this takes 6, and two such calls a registration were a tenth of the request
 * thread's CPU under load. The Deno entry keeps Web Crypto.
 */
export function hmacSha256(secret: string, message: string): Uint8Array {
  return createHmac('sha256', secret).update(message).digest()
}
