import type { ClientPageConfig } from '../../../schema/page-config.ts'
import { studioImageUrl } from './api.ts'

/**
 * The draft's config as the studio's preview frame shows it: pictures (written "/images/…" in the config, served by
 * the launch's own host once live) come from the studio's image endpoint, which also has those not yet published.
 */
export function withStudioImages(config: ClientPageConfig, slug: string): ClientPageConfig {
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string') return value.startsWith('/images/') ? studioImageUrl(slug, value.slice('/images/'.length)) : value
    if (Array.isArray(value)) return value.map(visit)
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]))
    return value
  }
  return visit(config) as ClientPageConfig
}
