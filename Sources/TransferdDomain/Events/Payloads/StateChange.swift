/// `task.created`, `task.resumed`, `task.suspended`: the task's state after the event.
package struct StateChange: Codable, Sendable, Equatable {
    package var state: TaskState

    package init(_ state: TaskState) {
        self.state = state
    }
}
