import Foundation

/// The time that the domain and the services reason with: what `now` is, and how a loop waits for a moment.
///
/// Production uses `SystemClock`; tests inject a clock they move by hand, so that retries, deadlines and retention
/// are tested without waiting for them.
package protocol WallClock: Sendable {
    var now: Date { get }

    /// Returns when `wakeUp` reports a ring, when `deadline` has come (nil: no deadline), or when the task is cancelled.
    func sleep(until deadline: Date?, orUntil wakeUp: Doorbell) async
}

/// The machine's clock.
package struct SystemClock: WallClock {
    package init() {}

    package var now: Date { Date() }

    package func sleep(until deadline: Date?, orUntil wakeUp: Doorbell) async {
        await wakeUp.wait(timeout: deadline.map { .seconds(max(0, $0.timeIntervalSinceNow)) + .milliseconds(1) })
    }
}
