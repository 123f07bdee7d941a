/// How `--shutdown-grace` is spent after SIGTERM: the services stop gracefully (the API stops taking requests, the
/// workers checkpoint and hand their tasks back, the dispatcher ends its attempts) for all of it but the last part;
/// what still runs then (a store, an origin or a subscriber that does not answer) is cancelled, and a process that
/// has not ended by the end of the grace is ended by swift-service-lifecycle (a fatal error: the database loses
/// nothing, as after `kill -9`).
struct ShutdownGrace: Equatable {
    /// For the graceful stop.
    let graceful: Duration
    /// For cancellation, after it.
    let cancellation: Duration

    /// Grace of `total` (at least 2 s): a fifth of it, at most 5 s, for cancellation.
    init(total: Duration) {
        cancellation = min(.seconds(5), total / 5)
        graceful = total - cancellation
    }
}
