import Foundation
import Hummingbird
import TransferdDomain

/// A background task as the API shows it: its clock, and its transfers with their states.
struct BackgroundTaskResponse: ResponseEncodable, Sendable {
    struct Transfer: Encodable, Sendable {
        var taskIdentifier: Int64
        var state: TaskState
    }

    var id: String
    var name: String
    var state: BackgroundTask.State
    /// Seconds left (decreasing; 0 once expired; frozen once ended).
    var backgroundTimeRemaining: Double
    var grantedDuration: Double
    var expirationWarning: Double
    var expiresAt: Date
    var createdAt: Date
    @ExplicitNull var endedAt: Date?
    var tasks: [Transfer]

    init(_ task: BackgroundTask, transfers: [TransferTask], now: Date) {
        id = task.publicId
        name = task.name
        state = task.state
        backgroundTimeRemaining = task.remaining(at: now)
        grantedDuration = task.grantedDuration
        expirationWarning = task.expirationWarning
        expiresAt = task.expiresAt
        createdAt = task.createdAt
        endedAt = task.endedAt
        tasks = transfers.map { Transfer(taskIdentifier: $0.taskIdentifier, state: $0.state) }
    }
}
