/**
 * The scenarios both lines must play out alike. Each has its own host (its id), so its overload
 * state and metric series are its own. Waits are exact: jitter is off.
 */
import type { Release, Scenario } from "./Scenario.js"

const exact = { jitter: "none" } as const
const get = { method: "GET", path: "/items" } as const
const ok = { status: 200, body: "ok" } as const
const unavailable = { status: 503 } as const
const noGiveUps = {} as const

const drained = (request: number, atMillis: number): Release => ({ request, atMillis, how: "drained" })

/** Counters of a scenario in which the breaker and the budget say nothing. */
const counted = (attempts: number, retries: number, giveUps: Readonly<Record<string, number>> = noGiveUps) => ({
  attempts,
  retries,
  giveUps,
  retryBudgetRefusals: 0,
  circuitBreakerRejections: 0
})

export const scenarios: ReadonlyArray<Scenario> = [
  {
    id: "success-first-try",
    description: "A 200 at once: one request, no wait; the response is released when the caller's scope closes.",
    policy: {},
    request: get,
    script: [ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [{ atMillis: 0, status: 200 }],
      released: [drained(1, 0)],
      metrics: counted(1, 0)
    }
  },
  {
    id: "default-backoff",
    description: "503, 503, 200 with the default backoff (500 ms doubling): waits of 500 and 1000 ms.",
    policy: exact,
    request: get,
    script: [unavailable, unavailable, ok],
    expected: {
      sentAtMillis: [0, 500, 1500],
      outcomes: [{ atMillis: 1500, status: 200 }],
      released: [drained(1, 0), drained(2, 500), drained(3, 1500)],
      metrics: counted(3, 2)
    }
  },
  {
    id: "backoff-capped-by-max-delay",
    description: "Exponential 500 ms doubling, capped at 1500 ms: waits of 500, 1000, 1500, 1500 ms.",
    policy: { ...exact, maxAttempts: 5, maxDelay: 1500 },
    request: get,
    script: [unavailable, unavailable, unavailable, unavailable, ok],
    expected: {
      sentAtMillis: [0, 500, 1500, 3000, 4500],
      outcomes: [{ atMillis: 4500, status: 200 }],
      released: [drained(1, 0), drained(2, 500), drained(3, 1500), drained(4, 3000), drained(5, 4500)],
      metrics: counted(5, 4)
    }
  },
  {
    id: "linear-backoff",
    description: "Linear 200 ms: waits of 200 and 400 ms.",
    policy: { ...exact, backoff: { _tag: "Linear", base: 200 } },
    request: get,
    script: [{ status: 502 }, { status: 504 }, ok],
    expected: {
      sentAtMillis: [0, 200, 600],
      outcomes: [{ atMillis: 600, status: 200 }],
      released: [drained(1, 0), drained(2, 200), drained(3, 600)],
      metrics: counted(3, 2)
    }
  },
  {
    id: "attempts-exhausted",
    description: "A lasting 503: three attempts 100 ms apart, then the last 503 with attempts-exhausted.",
    policy: { ...exact, backoff: { _tag: "Constant", base: 100 } },
    request: get,
    script: [unavailable],
    expected: {
      sentAtMillis: [0, 100, 200],
      outcomes: [
        { atMillis: 200, failure: "TransientStatus", status: 503, attempt: 3, giveUpReason: "attempts-exhausted" }
      ],
      released: [drained(1, 0), drained(2, 100), drained(3, 200)],
      metrics: counted(3, 2, { "attempts-exhausted": 1 })
    }
  },
  {
    id: "retry-after-seconds",
    description: "Retry-After: 2 replaces the backoff: the retry goes 2 s later.",
    policy: exact,
    request: get,
    script: [{ status: 503, headers: { "retry-after": "2" } }, ok],
    expected: {
      sentAtMillis: [0, 2000],
      outcomes: [{ atMillis: 2000, status: 200 }],
      released: [drained(1, 0), drained(2, 2000)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "retry-after-http-date",
    description: "Retry-After as an HTTP-date 3 s after the TestClock's start: the retry goes at 3 s.",
    policy: exact,
    request: get,
    script: [{ status: 429, headers: { "retry-after": "Thu, 01 Jan 1970 00:00:03 GMT" } }, ok],
    expected: {
      sentAtMillis: [0, 3000],
      outcomes: [{ atMillis: 3000, status: 200 }],
      released: [drained(1, 0), drained(2, 3000)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "retry-after-ignored",
    description: 'retryAfter: "ignore": the backoff (100 ms) decides, not Retry-After: 5.',
    policy: { ...exact, retryAfter: "ignore", backoff: { _tag: "Constant", base: 100 } },
    request: get,
    script: [{ status: 503, headers: { "retry-after": "5" } }, ok],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [{ atMillis: 100, status: 200 }],
      released: [drained(1, 0), drained(2, 100)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "retry-after-over-cap-waits-max-delay",
    description: "Retry-After: 5 over a 1 s maxDelay, by default: wait the cap, then retry.",
    policy: { ...exact, maxDelay: 1000 },
    request: get,
    script: [{ status: 503, headers: { "retry-after": "5" } }, ok],
    expected: {
      sentAtMillis: [0, 1000],
      outcomes: [{ atMillis: 1000, status: 200 }],
      released: [drained(1, 0), drained(2, 1000)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "retry-after-over-cap-gives-up",
    description: 'Retry-After: 5 over a 1 s maxDelay under "give-up": stop at once with that 503.',
    policy: { ...exact, maxDelay: 1000, whenRetryAfterExceedsMaxDelay: "give-up" },
    request: get,
    script: [{ status: 503, headers: { "retry-after": "5" } }, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        {
          atMillis: 0,
          failure: "TransientStatus",
          status: 503,
          attempt: 1,
          giveUpReason: "retry-after-exceeds-max-delay"
        }
      ],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "retry-after-exceeds-max-delay": 1 })
    }
  },
  {
    id: "post-not-retried",
    description: "A POST without an Idempotency-Key is not retried.",
    policy: exact,
    request: { method: "POST", path: "/orders", body: "text" },
    script: [unavailable, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [{ atMillis: 0, failure: "TransientStatus", status: 503, attempt: 1, giveUpReason: "not-idempotent" }],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "not-idempotent": 1 })
    }
  },
  {
    id: "post-blank-idempotency-key",
    description: "A blank Idempotency-Key is no key: the POST is not retried.",
    policy: exact,
    request: { method: "POST", path: "/orders", headers: { "idempotency-key": "  " }, body: "text" },
    script: [unavailable, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [{ atMillis: 0, failure: "TransientStatus", status: 503, attempt: 1, giveUpReason: "not-idempotent" }],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "not-idempotent": 1 })
    }
  },
  {
    id: "post-with-idempotency-key",
    description: "A POST with an Idempotency-Key is retried like a GET.",
    policy: exact,
    request: { method: "POST", path: "/orders", headers: { "idempotency-key": "order-42" }, body: "text" },
    script: [unavailable, { status: 201, body: "created" }],
    expected: {
      sentAtMillis: [0, 500],
      outcomes: [{ atMillis: 500, status: 201 }],
      released: [drained(1, 0), drained(2, 500)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "patch-retry-non-idempotent",
    description: "retryNonIdempotent: true retries a PATCH without a key.",
    policy: { ...exact, retryNonIdempotent: true },
    request: { method: "PATCH", path: "/orders/1", body: "text" },
    script: [{ transportError: "socket hang up", code: "ECONNRESET" }, ok],
    expected: {
      sentAtMillis: [0, 500],
      outcomes: [{ atMillis: 500, status: 200 }],
      released: [drained(2, 500)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "one-shot-body",
    description: "A PUT whose body is a stream is not retried: the first attempt consumed it.",
    policy: exact,
    request: { method: "PUT", path: "/items/1", body: "stream" },
    script: [unavailable, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [{ atMillis: 0, failure: "TransientStatus", status: 503, attempt: 1, giveUpReason: "one-shot-body" }],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "one-shot-body": 1 })
    }
  },
  {
    id: "permanent-status",
    description: "A 404 is permanent: not retried, its body read for the failure.",
    policy: exact,
    request: get,
    script: [{ status: 404, body: "no such item" }, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [{ atMillis: 0, failure: "PermanentStatus", status: 404, attempt: 1, giveUpReason: "not-retryable" }],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "not-retryable": 1 })
    }
  },
  {
    id: "transport-error-then-success",
    description: "A reset connection is retried after the backoff.",
    policy: exact,
    request: get,
    script: [{ transportError: "socket hang up", code: "ECONNRESET" }, ok],
    expected: {
      sentAtMillis: [0, 500],
      outcomes: [{ atMillis: 500, status: 200 }],
      released: [drained(2, 500)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "unrecoverable-transport-error",
    description: "An expired certificate cannot be cured by sending again: not retried.",
    policy: exact,
    request: get,
    script: [{ transportError: "certificate has expired", code: "CERT_HAS_EXPIRED" }, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        { atMillis: 0, failure: "ConnectionError", reason: "Unrecoverable", attempt: 1, giveUpReason: "not-retryable" }
      ],
      released: [],
      metrics: counted(1, 0, { "not-retryable": 1 })
    }
  },
  {
    id: "attempt-timeout-then-success",
    description: "A hang ends at attemptTimeout (1 s); the retry goes 100 ms later and succeeds.",
    policy: { ...exact, attemptTimeout: 1000, backoff: { _tag: "Constant", base: 100 } },
    request: get,
    script: [{ hang: true }, ok],
    expected: {
      sentAtMillis: [0, 1100],
      outcomes: [{ atMillis: 1100, status: 200 }],
      released: [drained(2, 1100)],
      metrics: counted(2, 1)
    }
  },
  {
    id: "attempt-timeout-exhausted",
    description: "Two hangs, each ended at attemptTimeout: a Timeout with attempts-exhausted.",
    policy: { ...exact, maxAttempts: 2, attemptTimeout: 1000, backoff: { _tag: "Constant", base: 100 } },
    request: get,
    script: [{ hang: true }],
    expected: {
      sentAtMillis: [0, 1100],
      outcomes: [
        {
          atMillis: 2100,
          failure: "ConnectionError",
          reason: "Timeout",
          attempt: 2,
          giveUpReason: "attempts-exhausted"
        }
      ],
      released: [],
      metrics: counted(2, 1, { "attempts-exhausted": 1 })
    }
  },
  {
    id: "total-timeout-cuts-attempt",
    description: "totalTimeout (2.5 s) cuts an attempt's 10 s limit to what remains: deadline-exceeded at 2.5 s.",
    policy: { ...exact, totalTimeout: 2500 },
    request: get,
    script: [{ hang: true }],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        {
          atMillis: 2500,
          failure: "ConnectionError",
          reason: "Timeout",
          attempt: 1,
          giveUpReason: "deadline-exceeded"
        }
      ],
      released: [],
      metrics: counted(1, 0, { "deadline-exceeded": 1 })
    }
  },
  {
    id: "deadline-before-wait",
    description: "A wait that would end past totalTimeout is not started: the 503 at once, deadline-exceeded.",
    policy: { ...exact, totalTimeout: 1000, backoff: { _tag: "Constant", base: 2000 } },
    request: get,
    script: [unavailable, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        { atMillis: 0, failure: "TransientStatus", status: 503, attempt: 1, giveUpReason: "deadline-exceeded" }
      ],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "deadline-exceeded": 1 })
    }
  },
  {
    id: "max-elapsed",
    description: "maxElapsed 1 s, waits of 600 ms: the second wait would end at 1.2 s, so it is not started.",
    policy: { ...exact, maxAttempts: 5, maxElapsed: 1000, backoff: { _tag: "Constant", base: 600 } },
    request: get,
    script: [unavailable],
    expected: {
      sentAtMillis: [0, 600],
      outcomes: [
        { atMillis: 600, failure: "TransientStatus", status: 503, attempt: 2, giveUpReason: "deadline-exceeded" }
      ],
      released: [drained(1, 0), drained(2, 600)],
      metrics: counted(2, 1, { "deadline-exceeded": 1 })
    }
  },
  {
    id: "retry-budget-exhausted",
    description: "A token bucket of 4: one retry (3 tokens left), then the second is refused at once.",
    policy: {
      ...exact,
      maxAttempts: 5,
      backoff: { _tag: "Constant", base: 100 },
      retryBudget: { _tag: "TokenBucket", options: { maxTokens: 4 } }
    },
    request: get,
    script: [unavailable],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [
        { atMillis: 100, failure: "TransientStatus", status: 503, attempt: 2, giveUpReason: "retry-budget-exhausted" }
      ],
      released: [drained(1, 0), drained(2, 100)],
      metrics: { ...counted(2, 1, { "retry-budget-exhausted": 1 }), retryBudgetRefusals: 1 }
    }
  },
  {
    id: "breaker-consecutive-1",
    description: "consecutive(1) against a lasting 503: one request, the retry rejected, circuit-open with the 503.",
    policy: {
      ...exact,
      backoff: { _tag: "Constant", base: 100 },
      circuitBreaker: { tripPolicy: { _tag: "Consecutive", failures: 1 } }
    },
    request: get,
    script: [unavailable],
    expected: {
      sentAtMillis: [0],
      outcomes: [{ atMillis: 100, failure: "TransientStatus", status: 503, attempt: 1, giveUpReason: "circuit-open" }],
      released: [drained(1, 0)],
      metrics: { ...counted(1, 0, { "circuit-open": 1 }), circuitBreakerRejections: 1 }
    }
  },
  {
    id: "breaker-half-open-probe",
    description:
      "consecutive(1), 1 s break: a call during the break is not sent; after it, one probe goes and its 200 closes the circuit.",
    policy: {
      ...exact,
      maxAttempts: 1,
      circuitBreaker: { tripPolicy: { _tag: "Consecutive", failures: 1 }, breakDuration: 1000 }
    },
    request: get,
    script: [unavailable, ok],
    calls: [0, 500, 1000],
    expected: {
      sentAtMillis: [0, 1000],
      outcomes: [
        { atMillis: 0, failure: "TransientStatus", status: 503, attempt: 1, giveUpReason: "attempts-exhausted" },
        { atMillis: 500, failure: "ConnectionError", reason: "CircuitOpen", attempt: 1, giveUpReason: "circuit-open" },
        { atMillis: 1000, status: 200 }
      ],
      released: [drained(1, 0), drained(2, 1000)],
      metrics: { ...counted(2, 0, { "attempts-exhausted": 1, "circuit-open": 1 }), circuitBreakerRejections: 1 }
    }
  }
]
