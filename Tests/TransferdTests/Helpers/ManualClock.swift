import Foundation
import ServiceLifecycle
import Synchronization
import Testing
import TransferdDomain

/// A clock that stands still until a test moves it: `advance(by:)` wakes every loop sleeping on it, which then
/// sees the new time, and `settle()` waits until each of them sleeps again. Retries, deadlines and retention are
/// tested with it without waiting for them.
///
/// Dates are stored to the millisecond, rounded, and read back as the nearest binary fraction, so a stored time can
/// lie a hair either side of the moment it was taken. This clock counts whole milliseconds and answers a tenth of a
/// millisecond past them: whatever the store reads back of a moment is never later than it.
final class ManualClock: WallClock {
    private struct State {
        var milliseconds: Int64
        var sleepers: [ObjectIdentifier: Doorbell] = [:]
        /// The loops the last advance woke that have not gone back to sleep.
        var awake: Set<ObjectIdentifier> = []

        var now: Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000 + 0.0001) }
    }

    private let state: Mutex<State>

    init(now: Date = Date()) {
        state = Mutex(State(milliseconds: Int64(now.timeIntervalSince1970 * 1000)))
    }

    var now: Date {
        state.withLock { $0.now }
    }

    /// Moves the clock forward and wakes every loop sleeping on it.
    func advance(by seconds: TimeInterval) {
        let sleepers = state.withLock { state in
            state.milliseconds += Int64((seconds * 1000).rounded())
            state.awake = Set(state.sleepers.keys)
            return Array(state.sleepers.values)
        }
        for sleeper in sleepers { sleeper.ring() }
    }

    /// Waits until every loop the last `advance(by:)` woke has gone back to sleep: it has seen the new time and done
    /// what the time asked of it, so that "nothing happened by then" holds without a fixed wait.
    func settle(timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation) async throws {
        try await waitUntil(timeout: timeout, sourceLocation: sourceLocation) { state.withLock { $0.awake.isEmpty } }
    }

    func sleep(until deadline: Date?, orUntil wakeUp: Doorbell) async {
        let sleeper = ObjectIdentifier(wakeUp)
        let due = state.withLock { state in
            state.sleepers[sleeper] = wakeUp
            state.awake.remove(sleeper)
            return deadline.map { $0 <= state.now } ?? false
        }
        if !due { await wakeUp.wait(timeout: nil) }
        // A loop that is ending sleeps no more: a later advance does not wait for it.
        if Task.isCancelled || Task.isShuttingDownGracefully {
            state.withLock { state in
                state.sleepers[sleeper] = nil
                state.awake.remove(sleeper)
            }
        }
    }
}
