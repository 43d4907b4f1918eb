import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { PageConfig } from '../../schema/page-config.ts'
import { loadPageConfig, PageConfigError, resolvePageConfigPath } from '../config/load-page-config.ts'

/** Where the Edge Function reads its form from (Supabase deploys only what the function imports, not page.config.json). */
export const edgeFormFile = 'supabase/functions/_shared/form.json'

/**
 * The slice of the page config the Edge Function needs: the site's name, e-mail, brokerage and language, the
 * registration form, and the reply to registrants when there is one.
 */
export function edgeFormFromPageConfig(config: Pick<PageConfig, 'site' | 'form' | 'reply'>) {
  return {
    $comment: 'Generated from page.config.json by `npm run edge:form`. Do not edit: edit page.config.json and run it again.',
    site: { name: config.site.name, email: config.site.email, brokerage: config.site.brokerage, lang: config.site.lang ?? 'en-CA' },
    form: {
      schema: config.form.schema,
      uiSchema: config.form.uiSchema,
      messages: config.form.messages,
      consent: config.form.consent,
    },
    ...(config.reply ? { reply: config.reply } : {}),
  }
}

/** The file's exact text, so a test can tell whether it is up to date. */
export function edgeFormText(config: Pick<PageConfig, 'site' | 'form' | 'reply'>): string {
  return `${JSON.stringify(edgeFormFromPageConfig(config), null, 2)}\n`
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const source = resolvePageConfigPath()
  try {
    const text = edgeFormText(loadPageConfig(source))
    writeFileSync(path.resolve(edgeFormFile), text)
    console.log(`Wrote ${edgeFormFile} from ${path.relative(process.cwd(), source) || source}.`)
  } catch (error) {
    console.error(error instanceof PageConfigError ? error.message : error)
    process.exit(1)
  }
}
