import Synchronization
import TransferdDomain

/// A token bucket that holds transfers to a rate in bytes per second; one is shared by every transfer (the service's
/// limit) and each transfer has its own (`maxBytesPerSecond`). The rate can change while transfers run.
///
/// Bytes are taken first and paid for after: a chunk that overdraws the bucket makes its taker wait until the
/// debt is repaid, so the long-run rate holds whatever the chunk sizes.
package final class BandwidthLimit: Sendable {
    private struct State {
        package var bytesPerSecond: Int64?
        package var available: Double = 0
        package var updatedAt = ContinuousClock.now
    }

    /// The longest single wait, so that waiting transfers notice a raised limit and keep their stall watchdog fed.
    package static let longestWait = Duration.milliseconds(250)

    private let state: Mutex<State>

    package init(bytesPerSecond: Int64?) {
        state = Mutex(State(bytesPerSecond: bytesPerSecond))
    }

    package var bytesPerSecond: Int64? {
        state.withLock { $0.bytesPerSecond }
    }

    package func setRate(_ bytesPerSecond: Int64?) {
        state.withLock { state in
            state.bytesPerSecond = bytesPerSecond
            state.available = min(state.available, 0)
        }
    }

    /// Takes `bytes` from the bucket and waits while it is overdrawn; `whileWaiting` runs after each wait.
    package func consume(_ bytes: Int, whileWaiting: () -> Void) async throws {
        var owed = Double(bytes)
        while let wait = state.withLock({ take(&owed, from: &$0) }) {
            try await Task.sleep(for: wait)
            whileWaiting()
        }
    }

    /// Refills the bucket, pays what is owed, and says how long to wait before the balance is positive again.
    private func take(_ owed: inout Double, from state: inout State) -> Duration? {
        guard let rate = state.bytesPerSecond.map(Double.init) else { return nil }
        let now = ContinuousClock.now
        let elapsed = (now - state.updatedAt).timeInterval
        // At most a quarter second of unused rate is saved up, so an idle transfer cannot burst far above it.
        state.available = min(state.available + elapsed * rate, rate / 4)
        state.updatedAt = now
        state.available -= owed
        owed = 0
        guard state.available < 0 else { return nil }
        return min(.milliseconds(Int64(-state.available / rate * 1000) + 1), Self.longestWait)
    }
}
