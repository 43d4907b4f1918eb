import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import type { PageConfig } from '../../schema/page-config.ts'
import { applyPhase, type PhasedConfig } from '../../schema/phase-apply.ts'
import { phaseOfConfig } from '../../schema/phase-schedule.ts'

/** One set of pages a launch's build prerenders: a phase (none for a config without phases) and its config. */
export type PhaseBuild = { name: string | undefined; config: PhasedConfig; live: boolean }

/**
 * Every phase a launch's pages are built for, in the config's order: the Node server serves whichever is in force
 * (src/server/site/launch-version.ts), a static host the one `live` at the build's moment `now` (its start times read
 * in launch.timeZone, else `timeZone`: NOTIFY_TIME_ZONE). A config without phases: one set, the config as it is.
 */
export function phasesToBuild(config: PageConfig, timeZone: string, now: number): PhaseBuild[] {
  if (!config.phases) return [{ name: undefined, config: applyPhase(config, undefined), live: true }]
  const live = phaseOfConfig(config, timeZone, now)
  return config.phases.list.map((phase) => ({
    name: phase.name,
    config: applyPhase(config, phase.name),
    live: phase.name === live,
  }))
}

/**
 * Writes each phase's form validator into distDir's assets (one file per distinct form: phases that change no form
 * text share one) with `bundle` (compile-form-validator.ts), and returns each phase's code and address.
 */
export async function writePhaseValidators(
  phases: PhaseBuild[],
  distDir: string,
  bundle: (form: PhasedConfig['form']) => Promise<string>,
): Promise<Array<{ code: string; file: string }>> {
  const out: Array<{ code: string; file: string }> = []
  for (const phase of phases) {
    const code = await bundle(phase.config.form)
    const file = `/assets/form-validator-${createHash('sha256').update(code).digest('hex').slice(0, 10)}.js`
    if (!out.some((done) => done.file === file)) writeFileSync(path.join(distDir, file), code)
    out.push({ code, file })
  }
  return out
}
