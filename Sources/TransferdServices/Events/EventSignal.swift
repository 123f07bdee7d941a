import Synchronization

/// Wakes long-polling readers of a session's event log when new events are committed.
///
/// Each session has a version that every commit bumps. A reader notes the version before it queries, and waits
/// only while the version is unchanged, so an event committed between the query and the wait is never missed.
package final class EventSignal: Sendable {
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
            state.versions[sessionID, default: 0] &+= 1
            return state.waiters.removeValue(forKey: sessionID) ?? [:]
        }
        for waiter in waiters.values { waiter.resume() }
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
