import { existsSync } from 'node:fs'
import { execFileSync } from 'node:child_process'

/** The flags every test and benchmark starts Chromium with (no network, no sandbox as root, no GPU). */
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
]

async function playwrightChromium(): Promise<string | undefined> {
  const { chromium } = await import('playwright-core')
  const own = chromium.executablePath()
  return own && existsSync(own) ? own : undefined
}

/**
 * A Chromium to drive: CHROME_PATH, Debian's /usr/bin/chromium, or Playwright's own (installed on demand
 * where the internet is reachable). Throws a plain explanation when there is none.
 */
export async function findChromium(env: Record<string, string | undefined> = process.env): Promise<string> {
  if (env.CHROME_PATH) {
    if (existsSync(env.CHROME_PATH)) return env.CHROME_PATH
    throw new Error(`CHROME_PATH is set to ${env.CHROME_PATH}, but there is no file there.`)
  }
  for (const candidate of ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']) {
    if (existsSync(candidate)) return candidate
  }
  const installed = await playwrightChromium()
  if (installed) return installed
  try {
    execFileSync(process.execPath, ['node_modules/playwright-core/cli.js', 'install', 'chromium'], {
      stdio: 'inherit',
      timeout: 300_000,
    })
  } catch {
    // Falls through to the explanation below: offline, or the download is blocked.
  }
  const downloaded = await playwrightChromium()
  if (downloaded) return downloaded
  throw new Error(
    [
      'No Chromium was found, so the browser tests cannot run.',
      'Do one of these, then run npm test again:',
      '  - Debian/Ubuntu: sudo apt-get install chromium',
      '  - point CHROME_PATH at a Chrome or Chromium binary: CHROME_PATH=/path/to/chrome npm test',
      '  - with internet access: npx playwright-core install chromium',
    ].join('\n'),
  )
}
