import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs'
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
  closeSync(openSync(file, 'a', privateFileMode))
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
