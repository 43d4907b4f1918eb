import { createHash } from 'node:crypto'
import type { Context } from 'hono'
import type { PageConfig } from '../../../../schema/page-config.ts'
import { applyPhase, hiddenAnchors, type PhasedConfig } from '../../../../schema/phase-apply.ts'
import { phaseOfConfig, phaseWords } from '../../../../schema/phase-schedule.ts'
import { toClientConfig } from '../../../build/client-config.ts'
import type { ServedLaunch } from '../../../server/site/launch-publisher.ts'
import type { PreviewPhases, PreviewResponse, StudioProblem } from '../../protocol.ts'
import { refuse } from '../api/respond.ts'
import type { StudioContext } from '../context.ts'
import { fileText, problemsOf, studioProblems } from '../launches.ts'

/**
 * What a preview shows: its config in the phase shown (none while every text has problems), and the draft's problems.
 */
export type Preview = { config?: PhasedConfig; phases?: PreviewPhases; problems: StudioProblem[] }

/**
 * The config a preview shows: the draft's when it has no problems, else the live text's, in the phase asked for (one
 * of its phases), else the one in force now: its "current" phase, or a later one whose start time has come. The
 * sections the phase hides stay in (for the editor's canvas); a preview link's (previewOfText) leaves them out.
 */
export async function previewOf(ctx: StudioContext, launch: ServedLaunch, asked?: string): Promise<Preview> {
  const draft = await ctx.store.getDraft(launch.slug)
  const live = (await ctx.store.latestVersion(launch.slug))?.text ?? fileText(launch)
  const draftProblems = draft ? problemsOf(launch, draft.text) : []
  for (const text of [draft && !draftProblems.length ? draft.text : undefined, live]) {
    if (text === undefined || problemsOf(launch, text).length > 0) continue
    const config = JSON.parse(text.replace(/^\uFEFF/, '')) as PageConfig
    const phases = phasesOf(ctx, config, asked)
    // The editor's canvas keeps the sections the phase hides (dimmed there): its edits address sections by place.
    const shown = applyPhase(config, phases?.shown, { hidden: 'keep' })
    return { config: shown, phases, problems: studioProblems(draftProblems) }
  }
  return { problems: studioProblems(draftProblems) }
}

/** The preview of one given text (a preview link's, bound when it was made): nothing to show while it has problems. */
export function previewOfText(ctx: StudioContext, launch: ServedLaunch, text: string, asked?: string): Preview {
  const problems = studioProblems(problemsOf(launch, text))
  if (problems.length) return { problems }
  const config = JSON.parse(text.replace(/^\uFEFF/, '')) as PageConfig
  const phases = phasesOf(ctx, config, asked)
  return { config: applyPhase(config, phases?.shown), phases, problems }
}

/** The phases of a config as the preview lists them, the one shown being `asked` when the config has it. */
function phasesOf(ctx: StudioContext, config: PageConfig, asked: string | undefined): PreviewPhases | undefined {
  if (!config.phases) return undefined
  const timeZone = config.launch.timeZone ?? ctx.timeZone
  const live = phaseOfConfig(config, ctx.timeZone, ctx.clock().getTime()) ?? config.phases.current
  const list = config.phases.list.map((phase) => ({
    name: phase.name,
    words: phaseWords(phase.name),
    starts: phase.starts,
  }))
  const shown = asked !== undefined && list.some((phase) => phase.name === asked) ? asked : live
  return { shown, live, timeZone, list, hidden: hiddenAnchors(config, shown) }
}

/** The phase a request asks the preview for (?phase=), if it is a phase's name at all. */
export function askedPhase(c: Context): string | undefined {
  const phase = c.req.query('phase')
  return phase && /^[a-z][a-z0-9-]{0,39}$/.test(phase) ? phase : undefined
}

const compiled = new Map<string, Promise<string>>()

/** The form's validator as one self-contained ES module (Ajv's runtime helpers bundled in), cached by the form. */
function validatorModule(form: PageConfig['form']): { key: string; code: () => Promise<string> } {
  const key = createHash('sha256').update(JSON.stringify(form)).digest('hex').slice(0, 16)
  return {
    key,
    code: () => {
      let entry = compiled.get(key)
      if (!entry) {
        // Loaded on first use: the compiler (RJSF's, with Ajv) takes seconds to import, which no server start should
        // wait for.
        entry = import('../../../build/compile-form-validator.ts').then(({ bundleFormValidatorModule }) =>
          bundleFormValidatorModule(form),
        )
        entry.catch(() => compiled.delete(key))
        if (compiled.size > 50) compiled.delete(compiled.keys().next().value!)
        compiled.set(key, entry)
      }
      return entry
    },
  }
}

/** The preview's JSON: the client's config, its problems, and where its form's validator is (under `base`). */
export function previewAnswer(c: Context, preview: Preview, base: string) {
  if (!preview.config)
    return c.json<PreviewResponse>({ config: null, problems: preview.problems, validatorUrl: `${base}/validator.js` })
  const { key } = validatorModule(preview.config.form)
  const shown = preview.phases ? `&phase=${preview.phases.shown}` : ''
  return c.json<PreviewResponse>({
    config: toClientConfig(preview.config),
    problems: preview.problems,
    validatorUrl: `${base}/validator.js?v=${key}${shown}`,
    phases: preview.phases,
  })
}

/** The preview's form validator as JavaScript; 404 while no text is without problems. */
export async function validatorAnswer(c: Context, launch: ServedLaunch, preview: Preview) {
  if (!preview.config) return refuse(c, 404, `Launch "${launch.slug}" has no version without problems to preview yet.`)
  const { code } = validatorModule(preview.config.form)
  return c.body(await code(), 200, { 'content-type': 'text/javascript; charset=utf-8' })
}
