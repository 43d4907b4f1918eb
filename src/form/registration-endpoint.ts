import { contactFunctionPath } from '../../schema/function-path.ts'

/**
 * The function's address, for the form's `action`: a visitor without JavaScript (or before it arrives) posts the
 * form there. The hosted project's when the build names one, else this origin's (the Node server). Its own module,
 * so that only the form's lazily loaded code carries it.
 */
export function registrationEndpoint(): string {
  const hosted = import.meta.env.VITE_SUPABASE_URL
  return hosted ? `${hosted.replace(/\/+$/, '')}${contactFunctionPath}` : contactFunctionPath
}
