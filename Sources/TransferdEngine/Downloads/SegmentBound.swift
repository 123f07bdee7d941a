import Synchronization

/// How far one segment of a download may read: its position (bytes taken from its response so far) and its end,
/// which another connection may move closer by taking the back half of what is left (``split(leaving:)``).
final class SegmentBound: Sendable {
    private let state: Mutex<(position: Int64, end: Int64)>

    init(_ range: Range<Int64>) {
        state = Mutex((range.lowerBound, range.upperBound))
    }

    /// Where the segment ends now.
    var end: Int64 { state.withLock { $0.end } }

    /// Takes up to `count` bytes at the position; returns how many fit before the end (fewer: the segment is done).
    func take(_ count: Int) -> Int {
        state.withLock { state in
            let taken = Int(max(0, min(Int64(count), state.end - state.position)))
            state.position += Int64(taken)
            return taken
        }
    }

    /// Gives the back half of what is left to another connection, when each half would be at least `minimum`
    /// bytes: the segment ends where the returned range starts.
    func split(leaving minimum: Int64) -> Range<Int64>? {
        state.withLock { state in
            let left = state.end - state.position
            guard left >= 2 * minimum else { return nil }
            let middle = state.position + left / 2
            defer { state.end = middle }
            return middle..<state.end
        }
    }

    /// Ends the segment where it is; returns what it leaves, for another connection.
    func stop() -> Range<Int64> {
        state.withLock { state in
            defer { state.end = state.position }
            return state.position..<max(state.position, state.end)
        }
    }

    /// What is left to read.
    var remaining: Int64 { state.withLock { $0.end - $0.position } }
}
