import { expect } from "@effect/vitest"
import { Effect, Either, Layer } from "effect"
import type * as RetryPolicy from "../../src/RetryPolicy.js"

/** The three ways a module takes its options, each of which must refuse a bad one the same way. */
export interface OptionsEntryPoints<I, ROut> {
  readonly make: (input: I) => Effect.Effect<unknown, RetryPolicy.InvalidRetryPolicy>
  readonly layer: (input: I) => Layer.Layer<ROut, RetryPolicy.InvalidRetryPolicy>
  readonly validate: (input: I) => Either.Either<unknown, RetryPolicy.InvalidRetryPolicy>
}

/** `make`, `layer` and `validate` all refuse `input` with an `InvalidRetryPolicy` naming `option` and the value given. */
export const expectInvalidOption = <I, ROut>(
  entryPoints: OptionsEntryPoints<I, ROut>,
  input: I,
  option: string,
  value: unknown
) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(entryPoints.make(input))
    expect(error._tag).toBe("InvalidRetryPolicy")
    expect(error.option).toBe(option)
    expect(error.value).toEqual(value)
    expect(error.message).toContain(`"${option}"`)
    expect(Either.isLeft(entryPoints.validate(input))).toBe(true)
    const fromLayer = yield* Effect.flip(Layer.build(entryPoints.layer(input)).pipe(Effect.scoped))
    expect(fromLayer.option).toBe(option)
  })
