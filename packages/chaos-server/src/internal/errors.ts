import * as Data from "effect/Data"

/**
 * A request the chaos server refuses to act on (unknown status code, delay out of range, ...). Answered with
 * 400 and `{ error: message }`, so a client under test sees why instead of a silent default.
 *
 * @internal
 */
export class BadRequest extends Data.TaggedError("BadRequest")<{ readonly message: string }> {}

/**
 * A request body larger than the configured limit. Answered with 413 and the connection closed, because the
 * rest of the body is never read.
 *
 * @internal
 */
export class PayloadTooLarge extends Data.TaggedError("PayloadTooLarge")<{ readonly limitBytes: number }> {}

/** @internal */
export const quote = (raw: string): string => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}...` : raw)
