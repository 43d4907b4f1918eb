import { readFileSync } from 'node:fs'
import path from 'node:path'

/**
 * A launch's name as people know it: its config's `site.name` ("Maple Ridge"), read without checking the rest of the
 * file, since the editor opens broken configs too. Falls back to the launch's slug, then to its folder's name.
 */
export function readLaunchName(configFile: string): string {
  try {
    const config = JSON.parse(readFileSync(configFile, 'utf8').replace(/^\uFEFF/, '')) as {
      site?: { name?: unknown }
      launch?: { slug?: unknown }
    }
    const name = config.site?.name
    if (typeof name === 'string' && name.trim()) return name.trim()
    const slug = config.launch?.slug
    if (typeof slug === 'string' && slug.trim()) return slug.trim()
  } catch {
    // unreadable or not JSON yet: the folder still tells which launch it is
  }
  return path.basename(path.dirname(path.resolve(configFile)))
}
