import type { ClientPageConfig } from '../../../schema/page-config.ts'

/**
 * The draft's config as the studio's preview frame shows it: pictures (written "/images/…" in the config, served by
 * the launch's own host once live) come from the studio's image endpoint `imagesBase`, which also has those not yet
 * published.
 */
export function withStudioImages(config: ClientPageConfig, imagesBase: string): ClientPageConfig {
  const visit = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value.startsWith('/images/')
        ? imagesBase + value.slice('/images/'.length).split('/').map(encodeURIComponent).join('/')
        : value
    if (Array.isArray(value)) return value.map(visit)
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, visit(v)]))
    return value
  }
  return visit(config) as ClientPageConfig
}
