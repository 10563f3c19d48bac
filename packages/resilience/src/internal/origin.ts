// Moved to the shared core; this path stays until the services import it from there.
export { OriginTable, type OriginParts, originOf, originParts } from "@effect-http-resilience/core/Origin"
