/**
 * The scenarios both lines must play out alike. Each has its own host (its id), so its overload
 * state and metric series are its own. Waits are exact: jitter is off.
 */
import type { GiveUpReason } from "@effect-http-resilience/core/FailureMessage"
import type { ScriptStep } from "@effect-http-resilience/core/ScriptedTransport"
import type { MetricValues, Outcome, PolicyOptions, Release, Scenario } from "./Scenario.js"

const exact = { jitter: "none" } as const
const every100ms = { ...exact, backoff: { _tag: "Constant", base: 100 } } as const
const consecutive = (failures: number) => ({ _tag: "Consecutive", failures }) as const

const get = { method: "GET", path: "/items" } as const
const postOrder = { method: "POST", path: "/orders", body: "text" } as const

const ok: ScriptStep = { status: 200, body: "ok" }
const okAfter = (delayMillis: number): ScriptStep => ({ ...ok, delayMillis })
const hedgedAfter100ms = { ...exact, retryBudget: "none", hedging: { delay: 100 } } as const
const unavailable: ScriptStep = { status: 503 }
const hang: ScriptStep = { hang: true }
const reset: ScriptStep = { transportError: "socket hang up", code: "ECONNRESET" }
const unavailableFor = (retryAfter: string): ScriptStep => ({ status: 503, headers: { "retry-after": retryAfter } })
/** Over the 128 KiB a release reads: aborted, not drained. */
const largeBody = "x".repeat(200_000)

const succeeded = (atMillis: number, status = 200): Outcome => ({ atMillis, status })
const transient = (atMillis: number, attempt: number, giveUpReason: GiveUpReason, status = 503): Outcome => ({
  atMillis,
  failure: "TransientStatus",
  status,
  attempt,
  giveUpReason
})
const circuitOpen = (atMillis: number): Outcome => ({
  atMillis,
  failure: "ConnectionError",
  reason: "CircuitOpen",
  attempt: 1,
  giveUpReason: "circuit-open"
})
const timedOut = (atMillis: number, attempt: number, giveUpReason: GiveUpReason): Outcome => ({
  atMillis,
  failure: "ConnectionError",
  reason: "Timeout",
  attempt,
  giveUpReason
})

const drained = (request: number, atMillis: number): Release => ({ request, atMillis, how: "drained" })
const cancelled = (request: number, atMillis: number): Release => ({ request, atMillis, how: "cancelled" })
/** Each request's response drained when it was sent: the time of its failure, or of a success the caller did not read. */
const drainedAsSent = (...sentAtMillis: ReadonlyArray<number>): ReadonlyArray<Release> =>
  sentAtMillis.map((atMillis, i) => drained(i + 1, atMillis))

/** Counters: `attempts` and `retries`, give-ups by reason, and budget refusals and breaker rejections if any. */
const counted = (
  attempts: number,
  retries: number,
  giveUps: Readonly<Record<string, number>> = {},
  overload: Partial<
    Pick<
      MetricValues,
      | "retryBudgetRefusals"
      | "circuitBreakerRefusals"
      | "hedges"
      | "hedgeWins"
      | "concurrencyLimitRefusals"
      | "coalesced"
    >
  > = {}
): MetricValues => ({ attempts, retries, giveUps, retryBudgetRefusals: 0, circuitBreakerRefusals: 0, ...overload })

/** A scenario, by default a GET under `exact` (default options, jitter off) and one call at 0. */
const scenario = (
  fields: Omit<Scenario, "policy" | "request"> & {
    readonly policy?: PolicyOptions
    readonly request?: Scenario["request"]
  }
): Scenario => ({ policy: exact, request: get, ...fields })

/** A single call that retried through `sentAtMillis` to a 200, every response drained when it came. */
const retriedToSuccess = (
  fields: Pick<Scenario, "id" | "description" | "script"> & { readonly policy?: PolicyOptions },
  sentAtMillis: ReadonlyArray<number>
): Scenario => {
  const last = sentAtMillis.at(-1) ?? 0
  return scenario({
    ...fields,
    expected: {
      sentAtMillis,
      outcomes: [succeeded(last)],
      released: drainedAsSent(...sentAtMillis),
      metrics: counted(sentAtMillis.length, sentAtMillis.length - 1)
    }
  })
}

/** A single call that ends at its first attempt with that attempt's 503 (or `status`), released at once. */
const stoppedAtFirst = (
  fields: Pick<Scenario, "id" | "description" | "script"> & Partial<Pick<Scenario, "policy" | "request">>,
  giveUpReason: GiveUpReason,
  overload: Partial<Pick<MetricValues, "retryBudgetRefusals" | "circuitBreakerRefusals">> = {}
): Scenario =>
  scenario({
    ...fields,
    expected: {
      sentAtMillis: [0],
      outcomes: [transient(0, 1, giveUpReason)],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { [giveUpReason]: 1 }, overload)
    }
  })

/** A hedge's 503 does not end a call whose first copy still runs; played bare and inside a span. */
const hedgeTransientCopy = scenario({
  id: "hedge-transient-copy-does-not-end-call",
  description:
    "The hedge's 503 at 150 ms ends nothing: the first copy answers at 300 ms; the 503, held as the outcome had both failed, is released then.",
  policy: hedgedAfter100ms,
  script: [okAfter(300), { status: 503, body: "busy", delayMillis: 50 }],
  expected: {
    sentAtMillis: [0, 100],
    outcomes: [succeeded(300)],
    released: [drained(2, 300), drained(1, 300)],
    metrics: counted(2, 0, {}, { hedges: 1 })
  }
})

/** A dialect's 200 saying no request is left until `resetAtMillis`: the next call, at 1 s, waits until then. */
const dialectHolds = (
  api: string,
  headers: Readonly<Record<string, string>>,
  resetAtMillis: number,
  says: string
): Scenario =>
  scenario({
    id: `dialect-${api}`,
    description: `rateLimitHeaders, ${says}: the call at 1 s waits until ${resetAtMillis / 1000} s.`,
    policy: { ...exact, rateLimitHeaders: {} },
    script: [{ status: 200, body: "ok", headers }, ok],
    calls: [0, 1000],
    expected: {
      sentAtMillis: [0, resetAtMillis],
      outcomes: [succeeded(0), succeeded(resetAtMillis)],
      released: drainedAsSent(0, resetAtMillis),
      metrics: counted(2, 0)
    }
  })

// The TestClock starts at the Unix epoch: a time of 3 s is 1970-01-01T00:00:03Z.
const dialectScenarios = (): ReadonlyArray<Scenario> => [
  dialectHolds(
    "openai",
    {
      "x-ratelimit-limit-requests": "60",
      "x-ratelimit-remaining-requests": "0",
      "x-ratelimit-reset-requests": "2.5s",
      "x-ratelimit-limit-tokens": "150000",
      "x-ratelimit-remaining-tokens": "0",
      "x-ratelimit-reset-tokens": "6m0s"
    },
    2500,
    "OpenAI's x-ratelimit-remaining-requests: 0 reset in 2.5s (its tokens, 0 until 6m0s, not read)"
  ),
  dialectHolds(
    "anthropic",
    {
      "anthropic-ratelimit-requests-limit": "50",
      "anthropic-ratelimit-requests-remaining": "0",
      "anthropic-ratelimit-requests-reset": "1970-01-01T00:00:03Z",
      "anthropic-ratelimit-tokens-remaining": "0",
      "anthropic-ratelimit-tokens-reset": "1970-01-01T01:00:00Z"
    },
    3000,
    "Anthropic's anthropic-ratelimit-requests-remaining: 0 until an RFC 3339 time (its tokens not read)"
  ),
  dialectHolds(
    "discord",
    {
      "x-ratelimit-limit": "5",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "2.75",
      "x-ratelimit-reset-after": "2.75",
      "x-ratelimit-bucket": "abcd1234"
    },
    2750,
    "Discord's X-RateLimit-Remaining: 0, Reset-After 2.75 (decimal seconds) in bucket abcd1234"
  ),
  dialectHolds(
    "github",
    {
      "x-ratelimit-limit": "60",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-used": "60",
      "x-ratelimit-reset": "3",
      "x-ratelimit-resource": "core"
    },
    3000,
    "GitHub's x-ratelimit-remaining: 0 until x-ratelimit-reset (Unix seconds) for the core resource"
  ),
  dialectHolds(
    "ietf",
    {
      ratelimit: '"bytes";r=0;t=60, "default";r=0;t=3;pk=:dXNlcjE=:',
      "ratelimit-policy": '"bytes";q=1000;w=60;qu="content-bytes", "default";q=50;w=60;qu="requests"'
    },
    3000,
    "the IETF draft's (Cloudflare's) RateLimit \"default\";r=0;t=3 with a pk (a content-bytes quota, 0 for 60 s, not read)"
  )
]

export const scenarios: ReadonlyArray<Scenario> = [
  // Waits: the backoff, Retry-After, their cap.
  retriedToSuccess(
    {
      id: "success-first-try",
      description: "A 200 at once: one request; the response is released when the caller's scope closes.",
      policy: {},
      script: [ok]
    },
    [0]
  ),
  retriedToSuccess(
    {
      id: "default-backoff",
      description: "503, 503, 200 with the default backoff (500 ms doubling): waits of 500 and 1000 ms.",
      script: [unavailable, unavailable, ok]
    },
    [0, 500, 1500]
  ),
  retriedToSuccess(
    {
      id: "backoff-capped-by-max-delay",
      description: "Exponential 500 ms doubling, capped at 1500 ms: waits of 500, 1000, 1500, 1500 ms.",
      policy: { ...exact, maxAttempts: 5, maxDelay: 1500 },
      script: [unavailable, { status: 502 }, { status: 504 }, { status: 500 }, ok]
    },
    [0, 500, 1500, 3000, 4500]
  ),
  scenario({
    id: "attempts-exhausted",
    description: "A lasting 503: three attempts 100 ms apart, then the last 503 with attempts-exhausted.",
    policy: every100ms,
    script: [unavailable],
    expected: {
      sentAtMillis: [0, 100, 200],
      outcomes: [transient(200, 3, "attempts-exhausted")],
      released: drainedAsSent(0, 100, 200),
      metrics: counted(3, 2, { "attempts-exhausted": 1 })
    }
  }),
  retriedToSuccess(
    {
      id: "retry-after-seconds",
      description: "Retry-After: 2 replaces the backoff: the retry goes 2 s later.",
      script: [unavailableFor("2"), ok]
    },
    [0, 2000]
  ),
  retriedToSuccess(
    {
      id: "retry-after-http-date",
      description: "A 429's Retry-After as an HTTP-date 3 s after the TestClock's start: the retry goes at 3 s.",
      script: [{ status: 429, headers: { "retry-after": "Thu, 01 Jan 1970 00:00:03 GMT" } }, ok]
    },
    [0, 3000]
  ),
  retriedToSuccess(
    {
      id: "retry-after-zero",
      description: "Retry-After: 0 replaces a 1 s backoff: the retry goes at once.",
      policy: { ...exact, backoff: { _tag: "Constant", base: 1000 } },
      script: [unavailableFor("0"), ok]
    },
    [0, 0]
  ),
  retriedToSuccess(
    {
      id: "retry-after-zero-on-429",
      description:
        "A 429's Retry-After: 0 is a window's rest rounded down (Spotify's): read as under a second, it waits 1 s, not the 100 ms backoff nor nothing.",
      policy: every100ms,
      script: [{ status: 429, headers: { "retry-after": "0" } }, ok]
    },
    [0, 1000]
  ),
  retriedToSuccess(
    {
      id: "429s-without-retry-after-back-off",
      description: "A run of 429s without any delay backs off as any transient status: 500 ms, then 1 s.",
      script: [{ status: 429 }, { status: 429 }, ok]
    },
    [0, 500, 1500]
  ),
  retriedToSuccess(
    {
      id: "retry-after-ignored",
      description: 'retryAfter: "ignore": the backoff (100 ms) decides, not Retry-After: 5.',
      policy: { ...every100ms, retryAfter: "ignore" },
      script: [unavailableFor("5"), ok]
    },
    [0, 100]
  ),
  retriedToSuccess(
    {
      id: "rate-limit-reset-only-on-429",
      description:
        "X-RateLimit-Reset on a 503 is a quota, not a wait (the 100 ms backoff); RateLimit-Reset: 2 on a 429 is.",
      policy: every100ms,
      script: [
        { status: 503, headers: { "x-ratelimit-reset": "5" } },
        { status: 429, headers: { "ratelimit-reset": "2" } },
        ok
      ]
    },
    [0, 100, 2100]
  ),
  retriedToSuccess(
    {
      id: "rate-limit-field-read-to-16-members",
      description:
        "A 429's RateLimit field is read to its first 16 members, as a 200's is: the exhausted policy listed 17th (t=60) is not read, and the open ones' reset (1 s) is the wait.",
      script: [
        {
          status: 429,
          headers: {
            ratelimit: [...Array.from({ length: 16 }, (_, i) => `"p${i}";r=5;t=1`), '"day";r=0;t=60'].join(", ")
          }
        },
        ok
      ]
    },
    [0, 1000]
  ),
  retriedToSuccess(
    {
      id: "retry-after-over-cap-waits-max-delay",
      description: "Retry-After: 5 over a 1 s maxDelay, by default: wait the cap, then retry.",
      policy: { ...exact, maxDelay: 1000 },
      script: [unavailableFor("5"), ok]
    },
    [0, 1000]
  ),
  stoppedAtFirst(
    {
      id: "retry-after-over-cap-gives-up",
      description: 'Retry-After: 5 over a 1 s maxDelay under "give-up": stop at once with that 503.',
      policy: { ...exact, maxDelay: 1000, whenRetryAfterExceedsMaxDelay: "give-up" },
      script: [unavailableFor("5"), ok]
    },
    "retry-after-exceeds-max-delay"
  ),
  stoppedAtFirst(
    {
      id: "retry-after-unrepresentable-gives-up",
      description:
        "A Retry-After too large to represent is the largest delay, not malformed: over the cap, so give up.",
      policy: { ...exact, whenRetryAfterExceedsMaxDelay: "give-up" },
      script: [unavailableFor("99999999999999999999"), ok]
    },
    "retry-after-exceeds-max-delay"
  ),

  // Vendors' retry hints: retry-after-ms, x-should-retry and Stripe-Should-Retry, 529.
  retriedToSuccess(
    {
      id: "retry-after-ms-wins",
      description:
        "retry-after-ms: 1500 beside Retry-After: 2 (OpenAI's SDKs send both): the more precise wins, 1.5 s.",
      script: [{ status: 503, headers: { "retry-after": "2", "retry-after-ms": "1500" } }, ok]
    },
    [0, 1500]
  ),
  retriedToSuccess(
    {
      id: "retry-after-ms-capped",
      description: "retry-after-ms: 90000 over a 1 s maxDelay is capped as Retry-After is: the retry goes at 1 s.",
      policy: { ...exact, maxDelay: 1000 },
      script: [{ status: 429, headers: { "retry-after-ms": "90000" } }, ok]
    },
    [0, 1000]
  ),
  stoppedAtFirst(
    {
      id: "x-should-retry-false-stops",
      description: "A 503 saying x-should-retry: false is not retried: the server declined.",
      policy: every100ms,
      script: [{ status: 503, headers: { "x-should-retry": "false" } }, ok]
    },
    "server-declined"
  ),
  stoppedAtFirst(
    {
      id: "stripe-should-retry-false-stops",
      description: "A 503 saying Stripe-Should-Retry: false is not retried either.",
      policy: every100ms,
      script: [{ status: 503, headers: { "Stripe-Should-Retry": "false" } }, ok]
    },
    "server-declined"
  ),
  retriedToSuccess(
    {
      id: "x-should-retry-true-retries-409",
      description: "A 409 is not transient, but one saying x-should-retry: true is retried (a GET): 100 ms later.",
      policy: every100ms,
      script: [{ status: 409, headers: { "x-should-retry": "true" } }, ok]
    },
    [0, 100]
  ),
  scenario({
    id: "x-should-retry-true-never-unkeyed-post",
    description: "x-should-retry: true on a POST without an Idempotency-Key: still not retried.",
    policy: every100ms,
    request: postOrder,
    script: [{ status: 409, headers: { "x-should-retry": "true" } }, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [transient(0, 1, "not-idempotent", 409)],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "not-idempotent": 1 })
    }
  }),
  scenario({
    id: "retry-hints-renamed",
    description:
      'retryHints.shouldRetry: ["x-retry"] replaces the defaults: x-should-retry: false is not read (retried at 100 ms), x-retry: false is.',
    policy: { ...every100ms, retryHints: { shouldRetry: ["x-retry"] } },
    script: [
      { status: 503, headers: { "x-should-retry": "false" } },
      { status: 503, headers: { "x-retry": "false" } },
      ok
    ],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [transient(100, 2, "server-declined")],
      released: drainedAsSent(0, 100),
      metrics: counted(2, 1, { "server-declined": 1 })
    }
  }),
  retriedToSuccess(
    {
      id: "status-529-transient",
      description: "529 (Anthropic's overloaded) is transient by default: retried 100 ms later.",
      policy: every100ms,
      script: [{ status: 529 }, ok]
    },
    [0, 100]
  ),

  // What may be sent again.
  stoppedAtFirst(
    {
      id: "post-not-retried",
      description: "A POST without an Idempotency-Key is not retried.",
      request: postOrder,
      script: [unavailable, ok]
    },
    "not-idempotent"
  ),
  stoppedAtFirst(
    {
      id: "post-blank-idempotency-key",
      description: "A blank Idempotency-Key is no key: the POST is not retried.",
      request: { ...postOrder, headers: { "idempotency-key": "  " } },
      script: [unavailable, ok]
    },
    "not-idempotent"
  ),
  scenario({
    id: "post-transport-error-not-retried",
    description:
      "A POST without a key is not retried after a connection failure either: it may have reached the server.",
    request: postOrder,
    script: [{ transportError: "connect ECONNREFUSED", code: "ECONNREFUSED" }, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        { atMillis: 0, failure: "ConnectionError", reason: "Transport", attempt: 1, giveUpReason: "not-idempotent" }
      ],
      released: [],
      metrics: counted(1, 0, { "not-idempotent": 1 })
    }
  }),
  scenario({
    id: "post-with-idempotency-key",
    description: "A POST with an Idempotency-Key is retried like a GET.",
    request: { ...postOrder, headers: { "idempotency-key": "order-42" } },
    script: [unavailable, { status: 201, body: "created" }],
    expected: {
      sentAtMillis: [0, 500],
      outcomes: [succeeded(500, 201)],
      released: drainedAsSent(0, 500),
      metrics: counted(2, 1)
    }
  }),
  scenario({
    id: "patch-retry-non-idempotent",
    description: "retryNonIdempotent: true retries a PATCH without a key.",
    policy: { ...exact, retryNonIdempotent: true },
    request: { method: "PATCH", path: "/orders/1", body: "text" },
    script: [reset, ok],
    expected: {
      sentAtMillis: [0, 500],
      outcomes: [succeeded(500)],
      released: [drained(2, 500)],
      metrics: counted(2, 1)
    }
  }),
  stoppedAtFirst(
    {
      id: "one-shot-body",
      description: "A PUT whose body is a stream is not retried: the first attempt consumed it.",
      request: { method: "PUT", path: "/items/1", body: "stream" },
      script: [unavailable, ok]
    },
    "one-shot-body"
  ),
  scenario({
    id: "permanent-status",
    description: "A 404 is permanent: not retried, its body read for the failure.",
    script: [{ status: 404, body: "no such item" }, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [{ atMillis: 0, failure: "PermanentStatus", status: 404, attempt: 1, giveUpReason: "not-retryable" }],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "not-retryable": 1 })
    }
  }),
  scenario({
    id: "transport-error-then-success",
    description: "A reset connection is retried after the backoff.",
    script: [reset, ok],
    expected: {
      sentAtMillis: [0, 500],
      outcomes: [succeeded(500)],
      released: [drained(2, 500)],
      metrics: counted(2, 1)
    }
  }),
  // isTransientConnectionError: the caller names the codes that retry (here by a list of codes).
  scenario({
    id: "transient-connection-by-code",
    description:
      "isTransientConnectionError naming ECONNRESET: two resets retried 100 ms apart, then a 200; a later call's ENOTFOUND, retried by default, is not.",
    policy: { ...every100ms, transientConnectionCodes: ["ECONNRESET"] },
    script: [reset, reset, ok, { transportError: "getaddrinfo ENOTFOUND", code: "ENOTFOUND" }],
    calls: [0, 1000],
    expected: {
      sentAtMillis: [0, 100, 200, 1000],
      outcomes: [
        succeeded(200),
        { atMillis: 1000, failure: "ConnectionError", reason: "Transport", attempt: 1, giveUpReason: "not-retryable" }
      ],
      released: [drained(3, 200)],
      metrics: counted(4, 2, { "not-retryable": 1 })
    }
  }),
  scenario({
    id: "unrecoverable-transport-error",
    description: "An expired certificate cannot be cured by sending again: not retried.",
    script: [{ transportError: "certificate has expired", code: "CERT_HAS_EXPIRED" }, ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        { atMillis: 0, failure: "ConnectionError", reason: "Unrecoverable", attempt: 1, giveUpReason: "not-retryable" }
      ],
      released: [],
      metrics: counted(1, 0, { "not-retryable": 1 })
    }
  }),

  // Releasing what is not handed back.
  scenario({
    id: "large-bodies-aborted",
    description: "A discarded 503 with a body over 128 KiB is aborted before the wait, not drained.",
    policy: every100ms,
    script: [{ status: 503, body: largeBody }, ok],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [succeeded(100)],
      released: [cancelled(1, 0), drained(2, 100)],
      metrics: counted(2, 1)
    }
  }),
  scenario({
    id: "large-unread-success-aborted",
    description: "A 200 the caller does not read, its body over 128 KiB: aborted when the caller's scope closes.",
    script: [{ status: 200, body: largeBody }],
    expected: {
      sentAtMillis: [0],
      outcomes: [succeeded(0)],
      released: [cancelled(1, 0)],
      metrics: counted(1, 0)
    }
  }),

  // Time limits.
  scenario({
    id: "attempt-timeout-then-success",
    description: "A hang ends at attemptTimeout (1 s); the retry goes 100 ms later and succeeds.",
    policy: { ...every100ms, attemptTimeout: 1000 },
    script: [hang, ok],
    expected: {
      sentAtMillis: [0, 1100],
      outcomes: [succeeded(1100)],
      released: [drained(2, 1100)],
      metrics: counted(2, 1)
    }
  }),
  scenario({
    id: "attempt-timeout-exhausted",
    description: "Two hangs, each ended at attemptTimeout: a Timeout with attempts-exhausted.",
    policy: { ...every100ms, maxAttempts: 2, attemptTimeout: 1000 },
    script: [hang],
    expected: {
      sentAtMillis: [0, 1100],
      outcomes: [timedOut(2100, 2, "attempts-exhausted")],
      released: [],
      metrics: counted(2, 1, { "attempts-exhausted": 1 })
    }
  }),
  scenario({
    id: "total-timeout-cuts-attempt",
    description: "totalTimeout (2.5 s) cuts an attempt's 10 s limit to what remains: deadline-exceeded at 2.5 s.",
    policy: { ...exact, totalTimeout: 2500 },
    script: [hang],
    expected: {
      sentAtMillis: [0],
      outcomes: [timedOut(2500, 1, "deadline-exceeded")],
      released: [],
      metrics: counted(1, 0, { "deadline-exceeded": 1 })
    }
  }),
  scenario({
    id: "total-timeout-cuts-retry",
    description: "A 1 s attempt limit, a 100 ms wait, 1.5 s in all: the second attempt gets the 400 ms left.",
    policy: { ...every100ms, attemptTimeout: 1000, totalTimeout: 1500 },
    script: [hang],
    expected: {
      sentAtMillis: [0, 1100],
      outcomes: [timedOut(1500, 2, "deadline-exceeded")],
      released: [],
      metrics: counted(2, 1, { "deadline-exceeded": 1 })
    }
  }),
  stoppedAtFirst(
    {
      id: "deadline-before-wait",
      description: "A wait that would end past totalTimeout is not started: the 503 at once, deadline-exceeded.",
      policy: { ...exact, totalTimeout: 1000, backoff: { _tag: "Constant", base: 2000 } },
      script: [unavailable, ok]
    },
    "deadline-exceeded"
  ),
  scenario({
    id: "max-elapsed",
    description: "maxElapsed 1 s, waits of 600 ms: the second wait would end at 1.2 s, so it is not started.",
    policy: { ...exact, maxAttempts: 5, maxElapsed: 1000, backoff: { _tag: "Constant", base: 600 } },
    script: [unavailable],
    expected: {
      sentAtMillis: [0, 600],
      outcomes: [transient(600, 2, "deadline-exceeded")],
      released: drainedAsSent(0, 600),
      metrics: counted(2, 1, { "deadline-exceeded": 1 })
    }
  }),

  // Overload protection.
  scenario({
    id: "retry-budget-exhausted",
    description: "A token bucket of 4: one retry (3 tokens left), then the second is refused at once.",
    policy: { ...every100ms, maxAttempts: 5, retryBudget: { _tag: "TokenBucket", options: { maxTokens: 4 } } },
    script: [unavailable],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [transient(100, 2, "retry-budget-exhausted")],
      released: drainedAsSent(0, 100),
      metrics: counted(2, 1, { "retry-budget-exhausted": 1 }, { retryBudgetRefusals: 1 })
    }
  }),
  scenario({
    id: "breaker-consecutive-1",
    description:
      "consecutive(1) against a lasting 503: one request; the retry is rejected after its wait; circuit-open with the 503.",
    policy: { ...every100ms, circuitBreaker: { tripPolicy: consecutive(1) } },
    script: [unavailable],
    expected: {
      sentAtMillis: [0],
      outcomes: [transient(100, 1, "circuit-open")],
      released: [drained(1, 0)],
      metrics: counted(1, 0, { "circuit-open": 1 }, { circuitBreakerRefusals: 1 })
    }
  }),
  scenario({
    id: "breaker-consecutive-2",
    description: "consecutive(2): the second 503 opens the circuit, so the third attempt is rejected.",
    policy: { ...every100ms, circuitBreaker: { tripPolicy: consecutive(2) } },
    script: [unavailable],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [transient(200, 2, "circuit-open")],
      released: drainedAsSent(0, 100),
      metrics: counted(2, 1, { "circuit-open": 1 }, { circuitBreakerRefusals: 1 })
    }
  }),
  retriedToSuccess(
    {
      id: "breaker-ignores-429",
      description: "A 429 is not a breaker sample: consecutive(1) stays closed and the retry goes out.",
      policy: { ...exact, circuitBreaker: { tripPolicy: consecutive(1) } },
      script: [{ status: 429, headers: { "retry-after": "1" } }, ok]
    },
    [0, 1000]
  ),
  scenario({
    id: "breaker-half-open-probe",
    description:
      "consecutive(1), 1 s break: a call during it is not sent; after it, one probe goes and its 200 closes the circuit.",
    policy: { ...exact, maxAttempts: 1, circuitBreaker: { tripPolicy: consecutive(1), breakDuration: 1000 } },
    script: [unavailable, ok],
    calls: [0, 500, 1000],
    expected: {
      sentAtMillis: [0, 1000],
      outcomes: [transient(0, 1, "attempts-exhausted"), circuitOpen(500), succeeded(1000)],
      released: drainedAsSent(0, 1000),
      metrics: counted(2, 0, { "attempts-exhausted": 1, "circuit-open": 1 }, { circuitBreakerRefusals: 1 })
    }
  }),
  scenario({
    id: "breaker-probe-fails",
    description: "A probe that fails opens the circuit again for a full break: the next probe goes 1 s later.",
    policy: { ...exact, maxAttempts: 1, circuitBreaker: { tripPolicy: consecutive(1), breakDuration: 1000 } },
    script: [unavailable, unavailable, ok],
    calls: [0, 1000, 1500, 2000],
    expected: {
      sentAtMillis: [0, 1000, 2000],
      outcomes: [
        transient(0, 1, "attempts-exhausted"),
        transient(1000, 1, "attempts-exhausted"),
        circuitOpen(1500),
        succeeded(2000)
      ],
      released: drainedAsSent(0, 1000, 2000),
      metrics: counted(3, 0, { "attempts-exhausted": 2, "circuit-open": 1 }, { circuitBreakerRefusals: 1 })
    }
  }),
  scenario({
    id: "breaker-retry-after-lengthens-break",
    description: "Retry-After: 3 on the 503 that opens a 1 s break lengthens it to 3 s.",
    policy: { ...exact, maxAttempts: 1, circuitBreaker: { tripPolicy: consecutive(1), breakDuration: 1000 } },
    script: [unavailableFor("3"), ok],
    calls: [0, 1500, 3000],
    expected: {
      sentAtMillis: [0, 3000],
      outcomes: [transient(0, 1, "attempts-exhausted"), circuitOpen(1500), succeeded(3000)],
      released: drainedAsSent(0, 3000),
      metrics: counted(2, 0, { "attempts-exhausted": 1, "circuit-open": 1 }, { circuitBreakerRefusals: 1 })
    }
  }),
  // The client's rate limit (issue #34).
  scenario({
    id: "rate-limit-burst",
    description: "A rate limit of 2 a second with a burst of 2: two calls go at once, the third waits 500 ms.",
    policy: { ...exact, rateLimit: { limit: 2, window: 1000, burst: 2 } },
    script: [ok],
    calls: [0, 0, 0],
    expected: {
      sentAtMillis: [0, 0, 500],
      outcomes: [succeeded(0), succeeded(0), succeeded(500)],
      released: drainedAsSent(0, 0, 500),
      metrics: counted(3, 0)
    }
  }),
  scenario({
    id: "rate-limit-at-the-quota",
    description:
      "30 calls at once under a rate limit of 10 a second, a server's quota: one every 100 ms, so no span of one second holds 11 (a fixed- or sliding-window server at 10 a second answers no 429).",
    policy: { ...exact, rateLimit: { limit: 10, window: 1000 } },
    script: [ok],
    calls: Array.from({ length: 30 }, () => 0),
    expected: {
      sentAtMillis: Array.from({ length: 30 }, (_, i) => i * 100),
      outcomes: Array.from({ length: 30 }, (_, i) => succeeded(i * 100)),
      released: drainedAsSent(...Array.from({ length: 30 }, (_, i) => i * 100)),
      metrics: counted(30, 0)
    }
  }),
  scenario({
    id: "rate-limit-refused-past-deadline",
    description:
      "A rate limit of 1 per 10 s and a 5 s total timeout: a second call's wait would pass its deadline, so it fails at once, unsent (RateLimited).",
    policy: { ...exact, rateLimit: { limit: 1, window: 10_000 }, totalTimeout: 5000 },
    script: [ok],
    calls: [0, 0],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        succeeded(0),
        { atMillis: 0, failure: "ConnectionError", reason: "RateLimited", attempt: 1, giveUpReason: "rate-limit" }
      ],
      released: drainedAsSent(0),
      metrics: counted(1, 0, { "rate-limit": 1 })
    }
  }),
  scenario({
    id: "rate-limit-headers-learnt",
    description:
      "rateLimitHeaders: a 200 saying X-RateLimit-Remaining: 0 with a reset in 3 s holds a call started at 1 s until 3 s.",
    policy: { ...exact, rateLimitHeaders: {} },
    script: [{ status: 200, body: "ok", headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": "3" } }, ok],
    calls: [0, 1000],
    expected: {
      sentAtMillis: [0, 3000],
      outcomes: [succeeded(0), succeeded(3000)],
      released: drainedAsSent(0, 3000),
      metrics: counted(2, 0)
    }
  }),
  // Each API's dialect, from the headers it documents: a 200 saying no request is left holds the next call (at 1 s)
  // until the reset; a token or byte quota beside it, exhausted for longer, is not read.
  ...dialectScenarios(),
  scenario({
    id: "rate-limit-headers-budget",
    description:
      "rateLimitHeaders: a 503 at once saying X-RateLimit-Remaining: 1 (reset in 2 s) leaves one request: the hedge sent then is slow, and while it is in flight it spends that one, so no third copy goes 100 ms later.",
    policy: { ...hedgedAfter100ms, hedging: { delay: 100, maxCopies: 3 }, rateLimitHeaders: {} },
    script: [{ ...unavailable, headers: { "x-ratelimit-remaining": "1", "x-ratelimit-reset": "2" } }, okAfter(500)],
    expected: {
      sentAtMillis: [0, 0],
      outcomes: [succeeded(500)],
      released: drainedAsSent(0, 500),
      metrics: counted(2, 0, {}, { hedges: 1, hedgeWins: 1 })
    }
  }),
  scenario({
    id: "cool-down-shared",
    description:
      "A 429 with Retry-After: 5 cools the origin down: a call started at 1 s waits for the end (5 s) before it sends.",
    script: [{ status: 429, headers: { "retry-after": "5" } }, ok],
    calls: [0, 1000],
    expected: {
      sentAtMillis: [0, 5000, 5000],
      outcomes: [succeeded(5000), succeeded(5000)],
      released: drainedAsSent(0, 5000, 5000),
      metrics: counted(3, 1)
    }
  }),
  scenario({
    id: "cool-down-over-cap-gives-up-unsent",
    description:
      "Under give-up, a 429's Retry-After: 5 over a 2 s maxDelay ends its call, and a call started at 1 s gives up unsent (CoolingDown).",
    policy: { ...exact, maxDelay: 2000, whenRetryAfterExceedsMaxDelay: "give-up" },
    script: [{ status: 429, headers: { "retry-after": "5" } }],
    calls: [0, 1000],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        transient(0, 1, "retry-after-exceeds-max-delay", 429),
        {
          atMillis: 1000,
          failure: "ConnectionError",
          reason: "CoolingDown",
          attempt: 1,
          giveUpReason: "retry-after-exceeds-max-delay"
        }
      ],
      released: drainedAsSent(0),
      metrics: counted(1, 0, { "retry-after-exceeds-max-delay": 2 })
    }
  }),
  scenario({
    id: "cool-down-from-a-call-not-retried",
    description:
      "A POST's 429 is not retried (no Idempotency-Key), yet its Retry-After: 2 still holds back a second POST, started at 1 s, until 2 s.",
    request: postOrder,
    script: [{ status: 429, headers: { "retry-after": "2" } }, ok],
    calls: [0, 1000],
    expected: {
      sentAtMillis: [0, 2000],
      outcomes: [transient(0, 1, "not-idempotent", 429), succeeded(2000)],
      released: drainedAsSent(0, 2000),
      metrics: counted(2, 0, { "not-idempotent": 1 })
    }
  }),
  // Hedging: a second copy of a slow attempt, paid from the budget, never for a POST.
  scenario({
    id: "hedge-beats-slow-copy",
    description:
      "No answer in 100 ms: a second copy goes, answers at 110 ms and wins; the first is aborted, never answered.",
    policy: hedgedAfter100ms,
    script: [okAfter(500), okAfter(10)],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [succeeded(110)],
      released: [drained(2, 110)],
      metrics: counted(2, 0, {}, { hedges: 1, hedgeWins: 1 })
    }
  }),
  hedgeTransientCopy,
  {
    ...hedgeTransientCopy,
    id: "hedge-transient-copy-within-a-span",
    description:
      "The same race inside a parent span, which changes nothing: the hedge's 503, held while the first copy runs, is released when that copy wins at 300 ms.",
    withinSpan: true
  },
  scenario({
    id: "hedge-never-for-post",
    description: "A POST without an Idempotency-Key is never hedged: one request, answered at 500 ms.",
    policy: hedgedAfter100ms,
    request: postOrder,
    script: [okAfter(500)],
    expected: {
      sentAtMillis: [0],
      outcomes: [succeeded(500)],
      released: [drained(1, 500)],
      metrics: counted(1, 0)
    }
  }),
  scenario({
    id: "hedge-refused-by-budget",
    description:
      "A budget with nothing to lend refuses the hedge: the call goes on with its first copy, answered at 500 ms.",
    policy: { ...hedgedAfter100ms, retryBudget: { ratio: 0, minPerSecond: 0 } },
    script: [okAfter(500)],
    expected: {
      sentAtMillis: [0],
      outcomes: [succeeded(500)],
      released: [drained(1, 500)],
      metrics: counted(1, 0, {}, { retryBudgetRefusals: 1 })
    }
  }),
  // The concurrency limit: every attempt, hedged copies included, takes a permit of its origin.
  scenario({
    id: "concurrency-limit-refuses-hedge",
    description:
      "A limit of 2, no queue: the first copy and one hedge hold both permits; the third copy is refused unsent at 200 ms, which stops hedging; the first copy answers at 500 ms.",
    policy: { ...hedgedAfter100ms, hedging: { delay: 100, maxCopies: 3 }, concurrencyLimit: { limit: 2 } },
    script: [okAfter(500), okAfter(500)],
    expected: {
      sentAtMillis: [0, 100],
      outcomes: [succeeded(500)],
      released: [drained(1, 500)],
      metrics: counted(2, 0, {}, { hedges: 1, concurrencyLimitRefusals: 1 })
    }
  }),
  // The breaker's slow-call trigger and half-open sampling (issue #44).
  scenario({
    id: "breaker-slow-calls-trip",
    description:
      "slowCalls over 100 ms, ratio 1, at least 2 calls: two 200s answered in 200 ms open the circuit; the third call is rejected unsent.",
    policy: {
      ...exact,
      maxAttempts: 1,
      circuitBreaker: { tripPolicy: consecutive(5), slowCalls: { duration: 100, ratio: 1, minimumThroughput: 2 } }
    },
    script: [okAfter(200)],
    calls: [0, 0, 0],
    expected: {
      sentAtMillis: [0, 200],
      outcomes: [succeeded(200), succeeded(400), circuitOpen(400)],
      released: [drained(1, 200), drained(2, 400)],
      metrics: counted(2, 0, { "circuit-open": 1 }, { circuitBreakerRefusals: 1 })
    }
  }),
  scenario({
    id: "breaker-half-open-sampling",
    description:
      "halfOpen 2 successes of 3 probes: after the 1 s break a failed probe keeps the circuit half-open, two 200s close it, and the next call goes out.",
    policy: {
      ...exact,
      maxAttempts: 1,
      circuitBreaker: { tripPolicy: consecutive(1), breakDuration: 1000, halfOpen: { probes: 3, successes: 2 } }
    },
    script: [unavailable, unavailable, ok],
    calls: [0, 1000, 1000, 1000, 1000],
    expected: {
      sentAtMillis: [0, 1000, 1000, 1000, 1000],
      outcomes: [
        transient(0, 1, "attempts-exhausted"),
        transient(1000, 1, "attempts-exhausted"),
        succeeded(1000),
        succeeded(1000),
        succeeded(1000)
      ],
      released: drainedAsSent(0, 1000, 1000, 1000, 1000),
      metrics: counted(5, 0, { "attempts-exhausted": 2 })
    }
  }),
  // Coalescing: identical GETs in flight share one whole call; the calls run side by side.
  scenario({
    id: "coalesce-shares-one-call",
    description:
      "Three identical GETs started at 0, 50 and 100 ms share the first one's request: one request, its body read once at 300 ms, every call answered then.",
    policy: { ...exact, coalesce: {} },
    calls: [0, 50, 100],
    concurrent: true,
    script: [okAfter(300)],
    expected: {
      sentAtMillis: [0],
      outcomes: [succeeded(300), succeeded(300), succeeded(300)],
      released: [drained(1, 300)],
      metrics: counted(1, 0, {}, { coalesced: 2 })
    }
  }),
  scenario({
    id: "coalesce-one-retry-sequence",
    description:
      "A coalesced call is one call: the 503 with Retry-After: 1 is retried once at 1 s for both callers, one budget and one retry, not two.",
    policy: { ...exact, coalesce: {} },
    calls: [0, 100],
    concurrent: true,
    script: [unavailableFor("1"), ok],
    expected: {
      sentAtMillis: [0, 1000],
      outcomes: [succeeded(1000), succeeded(1000)],
      released: [drained(1, 0), drained(2, 1000)],
      metrics: counted(2, 1, {}, { coalesced: 1 })
    }
  }),
  scenario({
    id: "coalesce-shares-the-failure",
    description:
      "The shared call's 404 at 200 ms is both callers' failure: one request, one give-up, the second call counted as coalesced.",
    policy: { ...exact, coalesce: {} },
    calls: [0, 100],
    concurrent: true,
    script: [{ status: 404, body: "no such item", delayMillis: 200 }],
    expected: {
      sentAtMillis: [0],
      outcomes: [
        { atMillis: 200, failure: "PermanentStatus", status: 404, attempt: 1, giveUpReason: "not-retryable" },
        { atMillis: 200, failure: "PermanentStatus", status: 404, attempt: 1, giveUpReason: "not-retryable" }
      ],
      released: [drained(1, 200)],
      metrics: counted(1, 0, { "not-retryable": 1 }, { coalesced: 1 })
    }
  }),
  // The body idle timeout: a body handed to the caller that stalls fails the caller's read.
  scenario({
    id: "body-idle-timeout-stalled-read",
    description:
      "A 200 whose body stalls after its first bytes: the caller's read fails 500 ms later with a Timeout, not retried (body-idle-timeout), and the body is cancelled.",
    policy: { ...exact, attemptTimeout: 60_000, bodyIdleTimeout: 500 },
    readBody: true,
    script: [{ ...ok, bodyStalls: true }],
    expected: {
      sentAtMillis: [0],
      outcomes: [timedOut(500, 1, "body-idle-timeout")],
      released: [cancelled(1, 500)],
      metrics: counted(1, 0, { "body-idle-timeout": 1 })
    }
  }),
  scenario({
    id: "body-idle-timeout-whole-body",
    description: "A body that arrives whole is read to its end with the body idle timeout on: a 200, drained at once.",
    policy: { ...exact, bodyIdleTimeout: 500 },
    readBody: true,
    script: [ok],
    expected: {
      sentAtMillis: [0],
      outcomes: [succeeded(0)],
      released: [drained(1, 0)],
      metrics: counted(1, 0)
    }
  }),
  // The rate limit counts a send until its answer: the server may have counted it as late as that.
  scenario({
    id: "rate-limit-late-answer",
    description:
      "A rate limit of 2 a second, 4 calls at once, the first answered 300 ms after it went: the third goes a window after that answer (1300 ms), not at 1000, the fourth at 1500.",
    policy: { ...exact, rateLimit: { limit: 2, window: 1000 } },
    script: [okAfter(300), ok],
    calls: [0, 0, 0, 0],
    expected: {
      sentAtMillis: [0, 500, 1300, 1500],
      outcomes: [succeeded(300), succeeded(500), succeeded(1300), succeeded(1500)],
      released: [drained(1, 300), drained(2, 500), drained(3, 1300), drained(4, 1500)],
      metrics: counted(4, 0)
    }
  })
]
