/**
 * The path supabase-js calls for `functions.invoke('send-contact-email')`, relative to the site's origin, and the
 * action of the form without JavaScript. A file of its own: in the page only the form's lazily loaded code needs it.
 */
export const contactFunctionPath = '/functions/v1/send-contact-email'
