import Synchronization
import TransferdDomain

/// A rate in bytes per second that the transfers passing through it share: the service's, a tenant's and a
/// session's (``BandwidthLimits``), and each transfer's own (`maxBytesPerSecond`). The rate can change while
/// transfers run.
///
/// Transfers reserve time on the limit's timeline, a piece of 16 KiB at a time, each piece after the pieces reserved
/// before it: a transfer that waits for its piece lets every other transfer reserve one before its next, so transfers
/// share the rate evenly, by bytes (round robin), rather than by who asks first or by chunk size. A chunk smaller than
/// a piece is a turn of its own; a transfer held back by a limit reads its socket's backlog in chunks of 64 KiB.
/// A transfer passes all its limits at once (``consume(_:through:whileWaiting:)``): it reserves each piece on every
/// one and waits for the latest, so it goes at the lowest rate that applies, not at a sum of waits.
package final class BandwidthLimit: Sendable {
    private struct State {
        var bytesPerSecond: Int64?
        /// When the pieces reserved so far will all have gone through at the rate.
        var freeAt = ContinuousClock.now
        /// Counts changes of the rate: a wait for a piece reserved at another rate ends.
        var rateChanges = 0
    }

    /// A reserved piece: when it may go, at which rate.
    private struct Reservation {
        let limit: BandwidthLimit
        let at: ContinuousClock.Instant
        let rateChanges: Int
    }

    /// The bytes reserved at a time: the grain of the round robin.
    static let piece = 16 << 10
    /// How far an idle limit lets bytes through at once: a quarter second of its rate.
    static let burst = Duration.milliseconds(250)
    /// The longest single wait, so that waiting transfers notice a change of rate and keep their stall watchdog fed.
    package static let longestWait = Duration.milliseconds(250)
    /// A wait shorter than this is not taken: the transfer is as far ahead of its rate at most.
    static let slack = Duration.milliseconds(1)

    private let state: Mutex<State>

    package init(bytesPerSecond: Int64?) {
        state = Mutex(State(bytesPerSecond: bytesPerSecond))
    }

    package var bytesPerSecond: Int64? {
        state.withLock { $0.bytesPerSecond }
    }

    /// Changes the rate; what was reserved at the old one goes at once, and the new one starts afresh.
    package func setRate(_ bytesPerSecond: Int64?) {
        state.withLock { state in
            guard state.bytesPerSecond != bytesPerSecond else { return }
            state.bytesPerSecond = bytesPerSecond
            state.freeAt = .now
            state.rateChanges += 1
        }
    }

    /// Lets `bytes` through every one of `limits`, waiting while any of them is ahead of its rate; `whileWaiting`
    /// runs after each wait.
    package static func consume(_ bytes: Int, through limits: [BandwidthLimit], whileWaiting: () -> Void) async throws {
        guard limits.contains(where: { $0.bytesPerSecond != nil }) else { return }
        var owed = bytes
        while owed > 0 {
            let piece = min(owed, Self.piece)
            owed -= piece
            let now = ContinuousClock.now
            let reservations = limits.compactMap { $0.reserve(piece, at: now) }
            while let goesAt = reservations.filter({ $0.limit.holds($0) }).map(\.at).max() {
                let left = goesAt - .now
                guard left > slack else { break }
                try await Task.sleep(for: min(left, longestWait))
                whileWaiting()
            }
        }
    }

    /// Reserves `bytes` after the pieces reserved before; nil without a rate.
    private func reserve(_ bytes: Int, at now: ContinuousClock.Instant) -> Reservation? {
        state.withLock { state in
            guard let rate = state.bytesPerSecond else { return nil }
            let start = max(state.freeAt, now - Self.burst)
            state.freeAt = start + .nanoseconds(Int64(Double(bytes) / Double(rate) * 1e9))
            return Reservation(limit: self, at: state.freeAt, rateChanges: state.rateChanges)
        }
    }

    /// Whether `reservation` still stands: the rate it was made at has not changed since.
    private func holds(_ reservation: Reservation) -> Bool {
        state.withLock { $0.rateChanges == reservation.rateChanges }
    }
}
