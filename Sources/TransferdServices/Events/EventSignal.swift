import Synchronization

/// Wakes long-polling readers of a session's event log when new events are committed.
///
/// Each session has a version that every commit bumps. A reader notes the version before it queries, and waits
/// only while the version is unchanged, so an event committed between the query and the wait is never missed.
/// `everySession` has a version too, bumped with every session's: readers of a whole tenant wait on it.
package final class EventSignal: Sendable {
    /// The version every session's events bump (no session has row id 0).
    package static let everySession: Int64 = 0

    private struct State {
        package var versions: [Int64: UInt64] = [:]
        package var waiters: [Int64: [Int: CheckedContinuation<Void, Never>]] = [:]
        package var nextWaiterID = 0
    }

    private let state = Mutex(State())

    package init() {}

    package func version(sessionID: Int64) -> UInt64 {
        state.withLock { $0.versions[sessionID, default: 0] }
    }

    /// Called after a commit that appended events to the session's log.
    package func notify(sessionID: Int64) {
        let waiters = state.withLock { state in
            var woken: [CheckedContinuation<Void, Never>] = []
            for key in [sessionID, Self.everySession] {
                state.versions[key, default: 0] &+= 1
                woken += (state.waiters.removeValue(forKey: key) ?? [:]).values
            }
            return woken
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when the session's version differs from `seen`, when `timeout` passes, or when the task is cancelled.
    package func wait(sessionID: Int64, seen: UInt64, timeout: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForChange(sessionID: sessionID, seen: seen) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForChange(sessionID: Int64, seen: UInt64) async {
        let waiterID = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    // Cancellation sets the flag before the handler runs, so checking it under the lock closes the gap.
                    if state.versions[sessionID, default: 0] != seen || Task.isCancelled { return true }
                    state.waiters[sessionID, default: [:]][waiterID] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { $0.waiters[sessionID]?.removeValue(forKey: waiterID) }
            continuation?.resume()
        }
    }
}
