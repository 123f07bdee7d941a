import TransferdDomain

/// The tasks' paths that each database takes its own way (`PostgreSQL/PostgresTasks.swift`,
/// `SQLite/SQLiteTasks.swift`): the identifiers a creation takes, a creation or an end of transfers in one statement
/// where the database has one, and the expiry of a completed task's content.
protocol TaskPaths: Sendable {
    /// ``SessionRepository/takeTaskIdentifiers(_:sessionID:)`` of `sessions`, for a count above 0.
    func takeIdentifiers(_ count: Int, sessionID: Int64, _ sessions: SQLSessionRepository) async throws -> TakenTaskIdentifiers?
    /// ``TaskRepository/create(_:)`` of `tasks`: nil where the creation is not one statement (SQLite's always).
    func create(_ creation: TaskCreation, _ tasks: SQLTaskRepository) async throws -> TaskCreation.Written?
    /// ``TaskRepository/endingBases(ids:owner:)`` of `tasks`: none where an end is not one statement (SQLite's).
    func endingBases(ids: [Int64], owner: String, _ tasks: SQLTaskRepository) async throws -> [TaskEnding.Basis]
    /// ``TaskRepository/end(_:)`` of `tasks`: nil where the end is not one statement (SQLite's always).
    func end(_ ending: TaskEnding, _ tasks: SQLTaskRepository) async throws -> [Event]?
    /// The condition that a completed task `t` of the session `s` was completed longer than its session's retention
    /// period (`s.retention_period`, in seconds) before the time of its one argument.
    var retentionExpired: String { get }
}
