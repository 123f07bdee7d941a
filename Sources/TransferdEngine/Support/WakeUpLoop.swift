import Foundation
import Logging
import ServiceLifecycle
import TransferdDomain

/// The loop of every background service: runs a pass, then sleeps until its doorbell rings, until the moment the pass
/// asked to be woken at, or until graceful shutdown, whichever comes first. A failed pass is logged and tried again
/// a second later.
package struct WakeUpLoop: Sendable {
    package let doorbell: Doorbell
    package let clock: any WallClock
    package let logger: Logger
    /// Told each pass's purpose once the pass has run: how a loop is seen to be alive (``run(_:pass:)``).
    let passed: @Sendable (String) -> Void

    package init(doorbell: Doorbell, clock: any WallClock, logger: Logger, passed: @escaping @Sendable (String) -> Void = { _ in }) {
        self.doorbell = doorbell
        self.clock = clock
        self.logger = logger
        self.passed = passed
    }

    /// Runs `pass` until graceful shutdown (or cancellation); `pass` returns when it wants to run again (nil: when
    /// rung). `purpose` names the pass in the log and to `passed`.
    package func run(_ purpose: String, pass: () async throws -> Date?) async {
        await withGracefulShutdownHandler {
            while !Task.isShuttingDownGracefully, !Task.isCancelled {
                var wakeAt: Date?
                do {
                    wakeAt = try await pass()
                } catch {
                    logger.error("could not \(purpose)", metadata: ["error": "\(error)"])
                    wakeAt = clock.now.addingTimeInterval(1)
                }
                passed(purpose)
                await clock.sleep(until: wakeAt, orUntil: doorbell)
            }
        } onGracefulShutdown: {
            doorbell.ring()
        }
    }
}
