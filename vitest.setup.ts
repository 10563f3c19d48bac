// Run before every test file of the vitest 3 projects (vitest.shared.ts). A worker of the
// "effect3" project runs file after file in one module graph (vitest.config.ts), and @effect/vitest
// 0.x's `layer()` assigns its own `effect`, `scoped`, `prop`, `flakyTest` and `layer` onto
// vitest's one `it` (Object.assign in its makeIt): without this, a file's `it.effect` would run in
// the layer of a file before it, with no TestClock. The methods as first loaded are put back.
import { it } from "@effect/vitest"

// This file is evaluated again for every test file; what it keeps lives on the global object.
const key = Symbol.for("effect-http-resilience/test/pristine-it")
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null
const saved: unknown = Reflect.get(globalThis, key)
const pristine = isRecord(saved) ? saved : { ...it }
Reflect.set(globalThis, key, pristine)
Object.assign(it, pristine)
