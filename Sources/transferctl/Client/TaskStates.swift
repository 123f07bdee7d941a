/// The states a task can be in, in the order the API lists them.
enum TaskStates {
    static let all = ["suspended", "running", "canceling", "completed"]
    /// The states of a task that has not completed.
    static let unfinished = ["suspended", "running", "canceling"]
}
