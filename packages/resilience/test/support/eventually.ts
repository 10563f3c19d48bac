// @generated from templates/test/support/eventually.ts.tmpl by scripts/generate-lines.ts: edit the template, then run pnpm generate.
import * as Effect from "effect/Effect"

/**
 * Waits, on the live clock, until `check` holds: for what a real server or transport does in its own
 * time (a socket closed, a request aborted). A fixed sleep instead would fail on busy cores.
 */
export const eventually = <E, R>(check: Effect.Effect<boolean, E, R>, what: string, limitMillis = 30_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + limitMillis
    while (!(yield* check)) {
      if (Date.now() > deadline) return yield* Effect.die(new Error(`not within ${limitMillis} ms: ${what}`))
      yield* Effect.sleep("20 millis")
    }
  })

/** {@link eventually} for a test written with promises. */
export const eventuallyTrue = (check: () => Promise<boolean>, what: string, limitMillis = 30_000): Promise<void> =>
  Effect.runPromise(eventually(Effect.promise(check), what, limitMillis))
