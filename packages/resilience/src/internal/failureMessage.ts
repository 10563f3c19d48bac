// The wording is the shared core's: an HttpFailure carries the plain fields it reads.
export { describeFailure, describeOutcome } from "@effect-http-resilience/core/FailureMessage"
