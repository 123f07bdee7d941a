import Synchronization
import TransferdDomain

/// The scheduler's memory of when each session was last served, so that sessions take turns:
/// among equally ranked candidates, the session served longest ago goes first.
final class SessionTurns: Sendable {
    private struct State {
        var clock: UInt64 = 0
        var lastServed: [Int64: UInt64] = [:]
    }

    private let state = Mutex(State())

    /// 0 for a session never served; otherwise larger means more recently.
    func lastServed(_ sessionID: Int64) -> UInt64 {
        state.withLock { $0.lastServed[sessionID, default: 0] }
    }

    func served(_ sessionID: Int64) {
        state.withLock { state in
            state.clock += 1
            state.lastServed[sessionID] = state.clock
        }
    }
}
