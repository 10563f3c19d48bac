/**
 * A request the chaos server refuses to act on (unknown status code, delay out of range, ...). Answered with
 * 400 and `{ error: message }`, so a client under test sees why instead of a silent default.
 *
 * @internal
 */
export class BadRequest extends Error {
  readonly _tag = "BadRequest"
}

/**
 * A request body larger than the configured limit. Answered with 413; node discards the rest of the body, so
 * the connection stays usable.
 *
 * @internal
 */
export class PayloadTooLarge extends Error {
  readonly _tag = "PayloadTooLarge"
  constructor(readonly limitBytes: number) {
    super(`request body exceeds ${limitBytes} bytes`)
  }
}

/** @internal */
export const quote = (raw: string): string => JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}...` : raw)
