import * as Effect from "effect/Effect"
import * as Cli from "../../src/internal/cli.js"

/** The CLI's Effect-free argument parser as an Effect: a usage error in the error channel. */
export const parseArguments = (args: ReadonlyArray<string>): Effect.Effect<Cli.Command, Cli.UsageError> => {
  const parsed = Cli.parseArguments(args)
  return parsed._tag === "UsageError" ? Effect.fail(parsed) : Effect.succeed(parsed)
}
