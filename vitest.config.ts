import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['tests/**/*.test.{ts,tsx}'],
    environment: 'node',
    // E2E_SLOW=1 runs the browser tests on a CPU throttled 4× (tests/e2e/harness.ts): a test may take that much longer.
    testTimeout: process.env.E2E_SLOW && process.env.E2E_SLOW !== '0' ? 120_000 : 30_000,
    hookTimeout: 120_000,
    maxWorkers: 2,
  },
})
