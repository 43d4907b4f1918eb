import { readdirSync, readFileSync } from 'node:fs'

/**
 * CPU time of processes from Linux's /proc, for the bench's figures of who used the machine during a load: a
 * process's own (user + system) and what its children that have ended and been waited for used (cutime + cstime).
 */

/** Linux counts CPU time in clock ticks of 10 ms (USER_HZ, 100 a second). */
const msPerTick = 10

/** The fields of /proc/<pid>/stat after its command, or undefined once the process is gone. */
function statOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  } catch {
    return undefined
  }
}

/** The live children of a process, from each of its threads' children list. */
export function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    )
  } catch {
    return []
  }
}

/**
 * CPU time in ms used so far by a process and every process under it: each one's own time, and the time of the
 * children each has already waited for (so a PostgreSQL backend that ended during the load still counts, with its
 * postmaster). 0 once the process is gone.
 */
export function treeCpuMs(pid: number | undefined): number {
  if (pid === undefined) return 0
  const fields = statOf(pid)
  if (!fields) return 0
  // utime, stime, cutime, cstime: fields 14–17 of stat, 11–14 after the command.
  const own = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0) * msPerTick
  return own + childrenOf(pid).reduce((sum, child) => sum + treeCpuMs(child), 0)
}

/** This process's CPU time so far in ms (all its threads: the load generator's included). */
export function ownCpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/**
 * Waits until the processes (each with everything under it) use less than a tenth of a core together, at most 60 s: a
 * Node server's delivery process loads and compiles its modules for seconds after the server listens (more on a busy
 * machine), which is no registration's cost and would take cores from the load that follows.
 */
export async function untilIdle(pids: Array<number | undefined>): Promise<void> {
  const total = () => pids.reduce<number>((sum, pid) => sum + treeCpuMs(pid), 0)
  const end = Date.now() + 60_000
  let last = total()
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const now = total()
    if (now - last < 100) return
    last = now
  }
}
