// The server's files this project reads for their types (market-item.ts, admin-dispute.ts) reach
// ApiError, which sets V8's Error.stackTraceLimit; Node's types declare it, this project has none.
interface ErrorConstructor {
  stackTraceLimit: number;
}
