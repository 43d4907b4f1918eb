import { createHash, randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs'
import path from 'node:path'

/** The config file's text and a version naming exactly that text (a hash, so any change by anyone shows). */
export type FileState = { text: string; version: string }

/** The version of a text: its SHA-256, shortened. Equal texts have equal versions, whoever wrote them. */
export function versionOf(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16)
}

/** Reads the file as it is on disk now, with its version. Throws when the file cannot be read. */
export function readConfigFile(file: string): FileState {
  const text = readFileSync(file, 'utf8')
  return { text, version: versionOf(text) }
}

/**
 * Replaces the file with `text` so that it is never half-written: the text goes to a temporary file in the same
 * folder, is flushed to the disk (fsync), then renamed over the file (atomic on one file system), and the folder
 * is flushed so the rename itself survives a power cut. The file keeps its permissions.
 */
export function writeFileAtomically(file: string, text: string): void {
  const dir = path.dirname(file)
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`)
  let mode = 0o644
  try {
    mode = statSync(file).mode & 0o777
  } catch {
    // A new file: the default mode.
  }
  const fd = openSync(temp, 'wx', mode)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    rmSync(temp, { force: true })
    throw error
  }
  closeSync(fd)
  try {
    renameSync(temp, file)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  try {
    const dirFd = openSync(dir, 'r')
    try {
      fsyncSync(dirFd)
    } finally {
      closeSync(dirFd)
    }
  } catch {
    // Some file systems (and Windows) cannot open or flush a folder; the rename has happened all the same.
  }
}
