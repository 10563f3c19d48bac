// The rules are the shared core's: the platform's request is the plain data they read.
export { hasOneShotBody, isIdempotent } from "@effect-http-resilience/core/Idempotency"
