/**
 * effect-http-resilience for Effect 4 (`effect/http`). Nothing is public yet: the port of the
 * Effect 3 package lands here, and the package stays private until it does (see PORTING.md).
 *
 * @since 0.1.0
 */
export {}
