import Synchronization

/// Lets `capacity` callers through at a time; the others wait in line and go through in the order they came. A
/// store's transactions take turns through one: its writer (one at a time), its read connections (past those it opens
/// as reads need them). A turn runs on its caller's executor (`nonisolated(nonsending)`): entering and running it add
/// no hop through the event loop's queue, during which the turn would be held by a caller not running.
final class Turnstile: Sendable {
    private struct State: ~Copyable {
        var free: Int
        var line: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(capacity: Int) {
        state = Mutex(State(free: capacity))
    }

    /// How many callers wait in line.
    var waiting: Int {
        state.withLock { $0.line.count }
    }

    /// Runs `body` once a turn is free, then frees it.
    nonisolated(nonsending) func run<T>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    nonisolated(nonsending) private func enter() async {
        if state.withLock({ state in state.free > 0 && state.line.isEmpty ? (state.free -= 1, true).1 : false }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let passes = state.withLock { state in
                guard state.free > 0 else {
                    state.line.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if passes { continuation.resume() }
        }
    }

    /// Hands the turn to the first in line, or frees it.
    private func leave() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.line.isEmpty else {
                state.free += 1
                return nil
            }
            return state.line.removeFirst()
        }
        next?.resume()
    }
}
