import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.js"

// The vitest 3 run (`pnpm test`, scripts/test.sh): the projects of vitest.workspace.ts (the Effect 3
// line and the packages both lines share: core, chaos server, conformance scenarios, examples),
// with the pool options vitest 3 reads from the root config only.
export default defineConfig({
  test: {
    projects,
    // A forks worker runs file after file ("effect3", "slow"), a threads worker one file
    // ("effect3-isolated", "slow-heap").
    poolOptions: { forks: { isolate: false }, threads: { isolate: true } }
  }
})
