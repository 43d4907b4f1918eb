// better-sqlite3 answers at once; the store contract answers with promises. This turns the one into the other.

/** A part of the contract as better-sqlite3 answers it: each method's result as it is, without its promise. */
export type Answered<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : T[K]
}

/**
 * The contract's part from methods that answer at once (better-sqlite3 is synchronous: a commit and its fsync are done
 * when it returns): each answer becomes a resolved promise and a throw a rejected one, as from an async method.
 */
export function promised<T extends object>(methods: Answered<T>): T {
  const out: Record<string, unknown> = {}
  for (const [name, method] of Object.entries(methods)) {
    // A throw inside the executor rejects the promise, as a throw inside an async method would.
    out[name] = (...args: unknown[]) =>
      new Promise((resolve) => resolve((method as (...a: unknown[]) => unknown)(...args)))
  }
  return out as T
}
