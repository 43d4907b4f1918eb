import { useEffect, useState, type CSSProperties } from 'react'
import 'react-toastify/ReactToastify.css'
import { ToastContainer } from 'react-toastify/unstyled'

/**
 * The height of the page's sticky header, followed as it changes (its links wrap to a second row on a phone), so a
 * toast appears just below it and never covers its links or its button.
 */
function useHeaderHeight(): number {
  const [height, setHeight] = useState(0)
  useEffect(() => {
    const header = document.querySelector('header')
    if (!header) return
    // Read in the observer's callbacks only (the first comes after the next layout), where the layout is fresh:
    // measured at mount, it forced a layout of the whole page in the task that mounted it.
    const observer = new ResizeObserver(() => setHeight(Math.ceil(header.getBoundingClientRect().height)))
    observer.observe(header)
    return () => observer.disconnect()
  }, [])
  return height
}

/** The toast container, mounted once after the page hydrates so its live region exists before any notice. */
export default function Toasts() {
  const headerHeight = useHeaderHeight()
  return (
    <ToastContainer
      position="top-center"
      newestOnTop
      closeOnClick={false}
      hideProgressBar
      theme="colored"
      style={{ '--site-header-height': `${headerHeight}px` } as CSSProperties}
    />
  )
}
