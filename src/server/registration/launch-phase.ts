import type { FunctionPhases } from '../../../schema/function-launch.ts'
import type { ReplyConfig } from '../../../schema/reply.ts'
import { withChanges } from '../../../schema/phase-apply.ts'
import { phaseAt, phaseScheduleOf } from '../../../schema/phase-schedule.ts'

/** A launch's phases as the function answers by them: the phase in force at a moment, and the reply in a phase. */
export type LaunchPhases = {
  /** The phase in force at `now`: "current", or the last later phase whose start time has come. */
  at(now: Date): string
  /** The reply as `phase` words it (its changes over the shared reply). */
  reply(config: ReplyConfig, phase: string | undefined): ReplyConfig
}

/**
 * The function's view of a launch's phases (schema/function-launch.ts), its start times read in the launch's time zone
 * (else `defaultTimeZone`, NOTIFY_TIME_ZONE) once; undefined for a launch without phases.
 */
export function launchPhasesOf(phases: FunctionPhases | undefined, defaultTimeZone: string): LaunchPhases | undefined {
  if (!phases) return undefined
  const schedule = phaseScheduleOf(phases, phases.timeZone ?? defaultTimeZone)
  return {
    at: (now) => phaseAt(schedule, now.getTime()),
    reply: (config, phase) => withChanges(config, phases.list.find((entry) => entry.name === phase)?.reply),
  }
}
