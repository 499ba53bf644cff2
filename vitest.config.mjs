// Vitest (Node) for js-tests/: `npx vitest run` (or `npm test`) from the repository root.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: new URL('.', import.meta.url).pathname,
    include: ['js-tests/**/*.test.mjs'],
    // The machine has two cores shared with builds; each worker instantiates its own wasm module.
    pool: 'forks',
    maxWorkers: 2,
    // Chromium start-up and the memory-growth run take seconds on a loaded machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
