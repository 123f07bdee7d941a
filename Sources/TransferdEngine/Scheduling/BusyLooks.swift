import Synchronization

/// While every worker is busy, the scheduler looks at the queue (for another tenant's waiting work, which may take a
/// worker back) at most once per `interval`, so that the claims a busy instance makes on every new task cost next to
/// nothing, as they did before workers were shared.
final class BusyLooks: Sendable {
    let interval: Duration
    private let last = Mutex<ContinuousClock.Instant?>(nil)

    init(interval: Duration) {
        self.interval = interval
    }

    /// Nil when a look is due at `now` (and it is taken); else how long until the next one is.
    func wait(at now: ContinuousClock.Instant) -> Duration? {
        last.withLock { last in
            if let previous = last, now - previous < interval { return interval - (now - previous) }
            last = now
            return nil
        }
    }
}
