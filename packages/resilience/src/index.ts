/**
 * @since 0.1.0
 */
export * as HttpFailure from "./HttpFailure.js"

/**
 * @since 0.1.0
 */
export * as ResilientHttpClient from "./ResilientHttpClient.js"

/**
 * @since 0.1.0
 */
export * as RetryAfter from "./RetryAfter.js"

/**
 * @since 0.1.0
 */
export * as RetryPolicy from "./RetryPolicy.js"
