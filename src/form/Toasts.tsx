import 'react-toastify/ReactToastify.css'
import { ToastContainer } from 'react-toastify/unstyled'

/** The toast container, mounted once after the page hydrates so its live region exists before any notice. */
export default function Toasts() {
  return <ToastContainer position="top-center" newestOnTop closeOnClick={false} hideProgressBar theme="colored" />
}
