import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "resilience",
    include: ["test/**/*.test.ts"]
  }
})
