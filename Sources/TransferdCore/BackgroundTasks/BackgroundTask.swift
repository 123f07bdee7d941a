import Foundation
import GRDB

/// A finite-length background task, after `beginBackgroundTask(expirationHandler:)`: a deadline-scoped group of
/// transfers. Its transfers run ahead of the session's others while it is active; shortly before the deadline
/// `background_task.expiring` is written (the expiration handler's moment), and at the deadline its unfinished
/// transfers are cancelled.
struct BackgroundTask: Codable, Sendable, SnakeCaseColumns, MutablePersistableRecord {
    enum State: String, Codable, Sendable {
        /// The clock runs.
        case active
        /// endBackgroundTask: the clock stopped; its transfers go on as ordinary ones.
        case ended
        /// Every bound transfer completed before the deadline.
        case completed
        /// The deadline passed; unfinished transfers were cancelled.
        case expired
    }

    static let databaseTableName = "background_tasks"

    var id: Int64?
    var publicId: String
    var sessionId: Int64
    var name: String
    var state: State
    /// Seconds granted (the request, capped by `--max-background-task-duration`).
    var grantedDuration: Double
    /// Seconds before `expiresAt` that `background_task.expiring` is written.
    var expirationWarning: Double
    /// Wall clock, so that a deadline survives restarts.
    var expiresAt: Date
    var warned: Bool
    var createdAt: Date
    var endedAt: Date?

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// backgroundTimeRemaining: seconds until the deadline while active, 0 once expired, frozen once ended.
    func remaining(at now: Date) -> Double {
        switch state {
        case .active: max(0, expiresAt.timeIntervalSince(now))
        case .expired: 0
        case .ended, .completed: max(0, expiresAt.timeIntervalSince(endedAt ?? now))
        }
    }
}
