import type { Frame, Page } from 'playwright-core'

/**
 * The canvas's keystroke figure (part of bench/studio.ts): in an open editor, the hero heading is clicked in the phone
 * preview and 20 letters are typed; each one's time runs from its keydown in the phone frame to the moment the
 * desktop frame's heading shows it (the phone shows it as typed: it is the field). Both times are read in the page
 * (performance.timeOrigin + now(), one clock for both frames), not through the test driver.
 */

type Stamp = [string, number]
type Stamped = Window & { studioBenchStamps?: Stamp[] }

async function frameOf(page: Page, title: string): Promise<Frame> {
  const frame = await (await page.locator(`iframe[title="${title}"]`).elementHandle())?.contentFrame()
  if (!frame) throw new Error(`no ${title}`)
  return frame
}

/** Median milliseconds from a keystroke on the canvas to both previews showing it (20 keystrokes). */
export async function measureCanvasKeystroke(page: Page, keystrokes = 20): Promise<number> {
  const phone = await frameOf(page, 'Phone preview')
  const desktop = await frameOf(page, 'Desktop preview')
  await phone.getByRole('heading', { level: 1 }).click()
  await page.keyboard.press('Control+a')
  await page.keyboard.type('Bench ')
  await desktop.waitForFunction(() => document.querySelector('h1')?.textContent === 'Bench ')
  await phone.evaluate(() => {
    const win = window as Stamped
    win.studioBenchStamps = []
    document.addEventListener(
      'keydown',
      (e) => win.studioBenchStamps!.push([e.key, performance.timeOrigin + performance.now()]),
      true,
    )
  })
  await desktop.evaluate(() => {
    const win = window as Stamped
    win.studioBenchStamps = []
    new MutationObserver(() => {
      win.studioBenchStamps!.push([
        document.querySelector('h1')?.textContent ?? '',
        performance.timeOrigin + performance.now(),
      ])
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  const letters = 'abcdefghijklmnopqrstuvwxyz'.slice(0, keystrokes)
  for (let i = 0; i < letters.length; i++) {
    await page.keyboard.type(letters[i]!)
    const expected = `Bench ${letters.slice(0, i + 1)}`
    await desktop.waitForFunction((text) => document.querySelector('h1')?.textContent === text, expected)
  }
  const keys = await phone.evaluate(() => (window as Stamped).studioBenchStamps ?? [])
  const shown = await desktop.evaluate(() => (window as Stamped).studioBenchStamps ?? [])
  await page.keyboard.press('Escape')
  const times = [...letters].map((letter, i) => {
    const pressed = keys.find(([key]) => key === letter)?.[1] ?? NaN
    const seen = shown.find(([text]) => text === `Bench ${letters.slice(0, i + 1)}`)?.[1] ?? NaN
    return seen - pressed
  })
  const sorted = times.filter(Number.isFinite).sort((a, b) => a - b)
  if (!sorted.length) throw new Error('no keystroke was measured')
  return Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10
}
