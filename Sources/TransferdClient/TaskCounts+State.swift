extension Components.Schemas.Session.TaskCountsPayload {
    /// The count of the session's tasks in `state`.
    public subscript(state: Components.Schemas.TaskState) -> Int {
        switch state {
        case .suspended: suspended
        case .running: running
        case .canceling: canceling
        case .completed: completed
        }
    }
}
