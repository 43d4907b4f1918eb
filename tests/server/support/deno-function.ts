import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { PageConfig } from '../../../schema/page-config.ts'
import { writeFunctionBundle } from '../../../src/build/function-bundle.ts'

/** The deno executable itself (not the npm wrapper, which would not pass signals on). */
export function denoBinary(): string {
  const candidates = [
    path.resolve('node_modules/deno/deno'),
    path.resolve(`node_modules/@deno/${process.platform}-${process.arch === 'x64' ? 'x64' : process.arch}-glibc/deno`),
  ]
  return candidates.find((c) => existsSync(c)) ?? path.resolve('node_modules/.bin/deno')
}

const entry = 'supabase/functions/send-contact-email/index.ts'
// npm packages come from the project's node_modules (installed by npm), so nothing is downloaded at test time.
const denoArgs = [
  'run',
  '--no-prompt',
  '--node-modules-dir=manual',
  '--config',
  'supabase/functions/send-contact-email/deno.json',
  '--allow-net',
  '--allow-env',
  '--allow-read',
  '--allow-sys',
  entry,
]
/** Where Deno must still reach a registry, it trusts the machine's CA store (corporate proxies re-sign TLS). */
const denoEnv = { DENO_TLS_CA_STORE: 'system', NO_COLOR: '1' }

/**
 * A copy of the function as Supabase would deploy it: its entry, the code it imports (src/, schema/) and its own
 * bundle of launches in supabase/functions/_shared/launches.json, under a temporary folder. The bundle's path is
 * fixed (the entry imports it statically, which is what makes Supabase deploy it), so each test gets its own tree
 * instead of writing the repository's file under other tests' feet. node_modules is the project's (a link).
 */
export type FunctionCopy = { root: string; remove(): void }

/** Copies the function into a temporary project; with `launches`, writes their bundle there as `npm run build` does. */
export function copyFunction(launches?: {
  launches: Array<{ slug: string; config: PageConfig }>
  defaultLaunch: string
}): FunctionCopy {
  const root = mkdtempSync(path.join(tmpdir(), 'vip-function-'))
  for (const part of ['src', 'schema', 'supabase/functions/send-contact-email']) {
    mkdirSync(path.dirname(path.join(root, part)), { recursive: true })
    cpSync(path.resolve(part), path.join(root, part), { recursive: true })
  }
  symlinkSync(path.resolve('node_modules'), path.join(root, 'node_modules'), 'dir')
  if (launches) writeFunctionBundle(launches.launches, launches.defaultLaunch, root)
  return { root, remove: () => rmSync(root, { recursive: true, force: true }) }
}

/** Runs the function's entry under real Deno in a copy, with only `env` (and PATH, HOME) for environment. */
export function runDenoFunction(root: string, env: Record<string, string>): ChildProcess {
  return spawn(denoBinary(), denoArgs, {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...(process.env.DENO_DIR ? { DENO_DIR: process.env.DENO_DIR } : {}),
      ...denoEnv,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
}

/** Waits for the function's `Listening on http://…` line; rejects with everything it said when it exits first. */
export function functionUrlOf(deno: ChildProcess, timeoutMs = 90_000): Promise<{ url: string; output: () => string }> {
  let output = ''
  deno.stdout!.on('data', (c: Buffer) => (output += c.toString()))
  deno.stderr!.on('data', (c: Buffer) => (output += c.toString()))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`deno did not start:\n${output}`)), timeoutMs)
    deno.stdout!.on('data', () => {
      const match = /Listening on (http:\/\/\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ url: match[1]!, output: () => output })
      }
    })
    deno.once('exit', () => {
      clearTimeout(timer)
      reject(new Error(`deno exited:\n${output}`))
    })
  })
}

/** Stops a function started here by its process, and waits for it to exit. */
export async function stopDeno(deno: ChildProcess | undefined): Promise<void> {
  if (!deno || deno.exitCode !== null || deno.signalCode !== null) return
  const exited = new Promise((resolve) => deno.once('exit', resolve))
  deno.kill('SIGTERM')
  await exited
}

/** `deno check` of the entry in a copy, as the test of the source runs it; returns its exit status and output. */
export function checkFunction(
  root: string,
  env: Record<string, string> = {},
): { status: number | null; output: string } {
  const check = spawnSync(denoBinary(), ['check', ...denoArgs.slice(2, 5), entry], {
    cwd: root,
    env: { ...process.env, ...denoEnv, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  })
  return { status: check.status, output: `${check.stdout}${check.stderr}` }
}
