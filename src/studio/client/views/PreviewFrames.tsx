import { useLayoutEffect, useRef, useState, type RefObject } from 'react'

const frameSizes = [
  { title: 'Phone preview', label: 'Phone', width: 390 },
  { title: 'Desktop preview', label: 'Desktop', width: 1280 },
] as const
const gap = 12

/**
 * Each frame's scale and height for a pane: side by side when wide (the phone larger than to scale, so its text can be
 * read), one above the other when narrow.
 */
export function fitFrames(
  paneWidth: number,
  paneHeight: number,
): { scales: number[]; height: number; stacked: boolean } {
  const stacked = paneWidth < 560
  if (stacked) return { scales: frameSizes.map((f) => Math.min(1, paneWidth / f.width)), height: 480, stacked }
  const phone = Math.min(1, (paneWidth * 0.38) / frameSizes[0].width)
  const desktop = Math.min(1, (paneWidth - frameSizes[0].width * phone - gap - 2) / frameSizes[1].width)
  return { scales: [phone, desktop], height: Math.max(320, paneHeight - 32), stacked }
}

/** The phone and desktop previews: iframes of /studio/preview-frame, scaled to fit the pane. */
export function PreviewFrames({ frames }: { frames: RefObject<(HTMLIFrameElement | null)[]> }) {
  const pane = useRef<HTMLElement>(null)
  const [fit, setFit] = useState(() => fitFrames(800, 600))
  useLayoutEffect(() => {
    const element = pane.current
    if (!element) return
    const measure = () => setFit(fitFrames(element.clientWidth, element.clientHeight))
    measure()
    const observer = new ResizeObserver(measure)
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return (
    <section className={fit.stacked ? 'previews stacked' : 'previews'} aria-label="Preview" ref={pane}>
      {frameSizes.map((size, i) => {
        const scale = fit.scales[i]!
        return (
          <figure key={size.title} className="frame" style={{ width: Math.floor(size.width * scale) }}>
            <figcaption>
              {size.label} · {size.width} px
            </figcaption>
            <div className="frame-box" style={{ height: fit.height }}>
              <iframe
                ref={(el) => {
                  frames.current[i] = el
                }}
                title={size.title}
                src="/studio/preview-frame"
                style={{ width: size.width, height: fit.height / scale, transform: `scale(${scale})` }}
              />
            </div>
          </figure>
        )
      })}
    </section>
  )
}
