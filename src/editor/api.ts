import { timingSafeEqual } from 'node:crypto'
import path from 'node:path'
import { Hono, type Context } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import type { PageConfig } from '../../schema/page-config.ts'
import { toClientConfig } from '../build/client-config.ts'
import { checkPageConfigText, publicDirFor, type Problem } from '../config/check-page-config.ts'
import { readConfigFile, versionOf, writeFileAtomically, type FileState } from './config-file.ts'
import { ImageUploadError, storeImage } from './images.ts'
import {
  tokenHeader,
  type CheckResponse,
  type ConflictResponse,
  type ErrorResponse,
  type ImageResponse,
  type ProblemView,
  type SaveRequest,
  type SaveResponse,
  type StateResponse,
} from './client/protocol.ts'

/** What the editor's API works on: the config file, the session's token and the last text without problems. */
export type EditorSession = {
  configFile: string
  /** The launch's name as people know it (readLaunchName); the file's name when not given. */
  launchName?: string
  token: string
  /** The last config the editor has seen without problems, saved or not: what the preview shows. */
  lastGood?: PageConfig
  /** Called when lastGood's form changes, so the preview's compiled form rules are made again. */
  onFormChanged?: () => void
}

const maxTextBytes = 5 * 1024 * 1024
const maxImageBytes = 40 * 1024 * 1024

function problemViews(problems: Problem[]): ProblemView[] {
  return problems.map(({ line, column, where, message, fix }) => ({ line, column, where, message, fix }))
}

/** The text's problems, the same ones `npm run validate` prints, checked against images beside the config. */
function check(session: EditorSession, text: string): { problems: ProblemView[]; config?: PageConfig } {
  const problems = checkPageConfigText(text, session.configFile, publicDirFor(session.configFile))
  if (problems.length) return { problems: problemViews(problems) }
  return { problems: [], config: JSON.parse(text.replace(/^\uFEFF/, '')) as PageConfig }
}

/** Makes `config` the one the preview shows; true when frames must reload (the form's compiled rules changed). */
function acceptGood(session: EditorSession, config: PageConfig): boolean {
  const formChanged = JSON.stringify(session.lastGood?.form) !== JSON.stringify(config.form)
  session.lastGood = config
  if (formChanged) session.onFormChanged?.()
  return formChanged
}

function readOrNothing(file: string): FileState | undefined {
  try {
    return readConfigFile(file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

function sameToken(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '')
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

function fail(c: Context, status: 400 | 403 | 413 | 415 | 500, error: string) {
  return c.json<ErrorResponse>({ error }, status)
}

/**
 * The editor's API under /api/: the file's state and version, checking a text (and feeding the preview), saving
 * (atomically, refused with 409 when the file changed since the text was based on it) and storing dropped
 * pictures. Every request must carry the session's token in the x-editor-token header: a page on another site
 * the person visits cannot read the editor page, so it cannot know the token, and cannot change their files.
 */
export function createEditorApi(session: EditorSession): Hono {
  const app = new Hono()
  const { configFile } = session

  app.use('/api/*', async (c, next) => {
    if (!sameToken(c.req.header(tokenHeader), session.token)) {
      return fail(c, 403, 'This request did not come from the editor page (its session token is missing or wrong). Reload the editor.')
    }
    await next()
  })

  app.get('/api/state', (c) => {
    const file = readOrNothing(configFile)
    if (!file) return fail(c, 500, `${configFile} is not there any more.`)
    return c.json<StateResponse>({
      file: path.basename(configFile),
      launch: session.launchName ?? path.basename(configFile),
      path: configFile,
      text: file.text,
      version: file.version,
      lineSeparator: /\r\n/.test(file.text) ? '\r\n' : '\n',
      problems: check(session, file.text).problems,
    })
  })

  app.get('/api/version', (c) => c.json({ version: readOrNothing(configFile)?.version ?? '' }))

  const textLimit = bodyLimit({ maxSize: maxTextBytes, onError: (c) => fail(c, 413, 'The text is larger than 5 MB.') })

  app.post('/api/check', textLimit, async (c) => {
    const { text } = await c.req.json<{ text: unknown }>()
    if (typeof text !== 'string') return fail(c, 400, 'Send the text to check as {"text": "…"}.')
    const { problems, config } = check(session, text)
    const response: CheckResponse = { problems }
    if (config) response.preview = { config: toClientConfig(config), reload: acceptGood(session, config) }
    return c.json(response)
  })

  app.post('/api/save', textLimit, async (c) => {
    const { text, baseVersion } = await c.req.json<Partial<SaveRequest>>()
    if (typeof text !== 'string' || typeof baseVersion !== 'string') {
      return fail(c, 400, 'Send {"text": "…", "baseVersion": "…"}: the text and the version of the file it was based on.')
    }
    const current = readOrNothing(configFile)
    // Another program changed the file since this text was loaded: saving would silently throw its work away.
    if (current && current.version !== baseVersion && current.text !== text) {
      return c.json<ConflictResponse>({ conflict: true, version: current.version, text: current.text }, 409)
    }
    writeFileAtomically(configFile, text)
    const { problems, config } = check(session, text)
    if (config) acceptGood(session, config)
    return c.json<SaveResponse>({ version: versionOf(text), problems })
  })

  app.post(
    '/api/images',
    bodyLimit({ maxSize: maxImageBytes, onError: (c) => fail(c, 413, 'The picture is larger than 40 MB. Make it smaller first.') }),
    async (c) => {
      const name = decodeURIComponent(c.req.header('x-file-name') ?? '')
      if (!name) return fail(c, 400, 'The picture has no file name (send it in the x-file-name header).')
      const bytes = new Uint8Array(await c.req.arrayBuffer())
      try {
        const stored = await storeImage(path.join(publicDirFor(configFile), 'images'), name, bytes)
        return c.json<ImageResponse>({ src: stored.src, width: stored.width, height: stored.height })
      } catch (error) {
        if (error instanceof ImageUploadError) return fail(c, 415, error.message)
        throw error
      }
    },
  )

  app.onError((error, c) => fail(c, 500, `The editor could not do that: ${error.message}`))
  return app
}

/** The editor's first look at the file: the config the preview starts with, if the file has no problem. */
export function initialGoodConfig(session: EditorSession): PageConfig | undefined {
  const file = readOrNothing(session.configFile)
  return file ? check(session, file.text).config : undefined
}
