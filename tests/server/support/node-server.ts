import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, gzipSync } from 'node:zlib'
import { readPageConfig } from './fixtures.ts'

/** A server process started from src/cli/serve.ts. */
export type ServerProcess = {
  url: string
  proc: ChildProcess
  output(): string
  /** Sends a signal and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

/** The result of a process that was expected to exit by itself. */
export type Exited = { code: number | null; stdout: string; stderr: string }

// A clean environment: a developer's own SMTP_URL or ANON_KEY must not change what the tests see.
function baseEnv(env: Record<string, string>): Record<string, string> {
  const keep = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']
  return { ...Object.fromEntries(keep.flatMap((k) => (process.env[k] ? [[k, process.env[k]]] : []))), ...env }
}

/** How to start the server process. */
export type LaunchOptions = {
  /** The file-creation mask to start it with (e.g. 0 to prove it does not rely on the usual 022). */
  umask?: number
}

// `node --import tsx` rather than the tsx binary: one process, so a SIGKILL really kills the server. With a umask,
// sh sets it and then becomes node (exec), so it is still one process.
function launch(env: Record<string, string>, options: LaunchOptions = {}): ChildProcess {
  const node = [process.execPath, '--import', 'tsx', 'src/cli/serve.ts']
  const [command, args] =
    options.umask === undefined
      ? [node[0]!, node.slice(1)]
      : ['/bin/sh', ['-c', `umask ${options.umask.toString(8).padStart(3, '0')} && exec "$@"`, 'sh', ...node]]
  return spawn(command, args, { env: baseEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
}

function exited(proc: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (proc.exitCode !== null || proc.signalCode !== null)
    return Promise.resolve({ code: proc.exitCode, signal: proc.signalCode })
  return new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })))
}

/** Starts the server and resolves once it printed its "Listening on" line (PORT=0 unless given). */
export async function startServerProcess(
  env: Record<string, string>,
  timeoutMs = 30_000,
  options: LaunchOptions = {},
): Promise<ServerProcess> {
  const proc = launch({ HOST: '127.0.0.1', PORT: '0', ...env }, options)
  let out = ''
  proc.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  proc.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), timeoutMs)
    const check = () => {
      const match = /Listening on (http:\/\/\S+)/.exec(out)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    proc.stdout!.on('data', check)
    proc.once('exit', () => {
      clearTimeout(timer)
      reject(new Error(`server exited before listening:\n${out}`))
    })
  })
  return {
    url,
    proc,
    output: () => out,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal)
      return exited(proc)
    },
  }
}

/** Runs the server expecting it to refuse to start; returns its exit code and output. */
export async function runServerExpectingExit(env: Record<string, string>, timeoutMs = 30_000): Promise<Exited> {
  const proc = launch({ HOST: '127.0.0.1', PORT: '0', ...env })
  let stdout = ''
  let stderr = ''
  proc.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs)
  const { code } = await exited(proc)
  clearTimeout(timer)
  return { code, stdout, stderr }
}

/**
 * Writes a small built site of the default launch (the repository's page.config.json) where the server looks for it,
 * distRoot/<slug>/: index.html, 404.html, a hashed asset with .br and .gz siblings, robots.txt.
 */
export function writeDist(distRoot: string): { asset: string; assetText: string } {
  const dir = path.join(distRoot, readPageConfig().launch.slug)
  mkdirSync(path.join(dir, 'assets'), { recursive: true })
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><title>Home</title><script type="application/ld+json">{"@type":"RealEstateAgent"}</script><h1>Bramblewood Crossing</h1>',
  )
  writeFileSync(path.join(dir, '404.html'), '<!doctype html><title>Not found</title><h1>404</h1>')
  const assetText = `console.log(${JSON.stringify('x'.repeat(2000))})\n`
  writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js'), assetText)
  writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js.br'), brotliCompressSync(assetText))
  writeFileSync(path.join(dir, 'assets', 'index-Ab12Cd34.js.gz'), gzipSync(assetText))
  writeFileSync(path.join(dir, 'robots.txt'), 'User-agent: *\nAllow: /\n')
  writeFileSync(path.join(dir, '.env'), 'SECRET=1\n')
  return { asset: '/assets/index-Ab12Cd34.js', assetText }
}
