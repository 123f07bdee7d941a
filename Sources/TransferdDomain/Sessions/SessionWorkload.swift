/// What the bookkeeping of a session after a change of its tasks reads of it, from its row alone: its state, whether
/// an invalidation cancels its tasks, and its busy (running or canceling) and unfinished (not completed) tasks.
package struct SessionWorkload: Sendable, Equatable {
    package var state: Session.State
    package var cancelsTasks: Bool
    package var busy: Int
    package var unfinished: Int

    package init(state: Session.State, cancelsTasks: Bool, busy: Int, unfinished: Int) {
        self.state = state
        self.cancelsTasks = cancelsTasks
        self.busy = busy
        self.unfinished = unfinished
    }

    /// The workload once one of the session's tasks went from `old` to `new`.
    package func moved(from old: TaskState, to new: TaskState) -> SessionWorkload {
        var moved = self
        moved.busy += (new.isBusy ? 1 : 0) - (old.isBusy ? 1 : 0)
        moved.unfinished += (new == .completed ? 0 : 1) - (old == .completed ? 0 : 1)
        return moved
    }
}
