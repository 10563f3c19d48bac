import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as HttpFailure from "../HttpFailure.js"
import { type Attempt, connectionError } from "./classify.js"
import * as timeout from "./timeout.js"

/**
 * Bounds an attempt: past `limitMillis` (`Infinity`: no limit) it is interrupted and fails with
 * a `ConnectionError` "Timeout". Interrupting the platform's exchange aborts its request, every
 * hop of it (redirects followed inside the wrapped client included): public APIs only, no handle
 * on the request that another call or another hop could share.
 *
 * @internal
 */
export const limited = <A, E, R>(
  attempt: Attempt,
  limitMillis: number,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | HttpFailure.ConnectionError, R> =>
  Number.isFinite(limitMillis)
    ? timeout.timeoutFail(effect, Duration.millis(limitMillis), () =>
        connectionError(attempt, "Timeout", `no response within ${Duration.format(Duration.millis(limitMillis))}`)
      )
    : effect
