import Synchronization

/// Wakes a service's loop: `ring()` from anywhere, `wait(timeout:)` in the loop. Rings while nobody waits are
/// kept (as one), so a ring between the loop's check and its wait is never lost.
package final class Doorbell: Sendable {
    private struct State {
        package var rung = false
        package var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    package init() {}

    package func ring() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state.waiter = nil }
            if state.waiter == nil { state.rung = true }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns when rung, after `timeout` (nil: no limit), or when the task is cancelled. One waiter at a time.
    package func wait(timeout: Duration?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForRing() }
            if let timeout {
                group.addTask { try? await Task.sleep(for: timeout) }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForRing() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.rung || Task.isCancelled {
                        state.rung = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }?.resume()
        }
    }
}
