import { defineConfig } from 'vitest/config'

// E2E_SLOW=1 runs the browser tests on a CPU throttled 4× (tests/e2e/harness.ts), as a slow machine would: every
// time limit is that much longer.
const slowdown = process.env.E2E_SLOW && process.env.E2E_SLOW !== '0' ? 4 : 1

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 30_000 * slowdown,
    hookTimeout: 120_000 * slowdown,
    // expect.poll waits for a state (hydration, a dialog gone); 1 s, its default, is too short for a loaded machine.
    expect: { poll: { timeout: 5_000 * slowdown } },
    maxWorkers: 2,
    // One temporary folder per run, removed at its end (tests/temp-root.ts).
    globalSetup: ['tests/temp-root.ts'],
  },
})
