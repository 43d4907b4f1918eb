/** The words of publishing: the hosted studio publishes, `npm run edit` saves to the file. */
export type PublishWords = { publish: string; publishing: string; published: string; not: string }

/** The words for the studio (`local` false) or for `npm run edit` (`local` true). */
export function publishWords(local: boolean): PublishWords {
  return local
    ? {
        publish: 'Save to file',
        publishing: 'Saving to the file…',
        published: 'Saved to the file as version',
        not: 'Not saved to the file',
      }
    : { publish: 'Publish', publishing: 'Publishing…', published: 'Published as version', not: 'Not published' }
}
