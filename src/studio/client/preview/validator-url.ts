let resolveUrl: (url: string) => void = () => {}

/** Where the draft form's compiled validator is: known once the frame gets its first config. */
export const draftValidatorUrl = new Promise<string>((resolve) => (resolveUrl = resolve))

/** Says where the draft form's validator is (the first call counts; a frame reloads to take another). */
export function setDraftValidatorUrl(url: string): void {
  resolveUrl(url)
}
