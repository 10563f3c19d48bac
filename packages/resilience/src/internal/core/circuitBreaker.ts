// Moved to the shared core; this path stays until the services import it from there.
export * from "@effect-http-resilience/core/CircuitBreaker"
