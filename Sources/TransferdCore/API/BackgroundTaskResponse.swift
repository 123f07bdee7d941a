import Foundation
import Hummingbird

/// A background task as the API shows it: its clock, and its transfers with their states.
struct BackgroundTaskResponse: ResponseCodable, Sendable {
    struct Transfer: Codable, Sendable {
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
    var endedAt: Date?
    var tasks: [Transfer]

    init(_ task: BackgroundTask, transfers: [TransferTask], now: Date = Date()) {
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

    /// Encodes `null` for absent optionals, so every background task has the same set of fields.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(state, forKey: .state)
        try container.encode(backgroundTimeRemaining, forKey: .backgroundTimeRemaining)
        try container.encode(grantedDuration, forKey: .grantedDuration)
        try container.encode(expirationWarning, forKey: .expirationWarning)
        try container.encode(expiresAt, forKey: .expiresAt)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(endedAt, forKey: .endedAt)
        try container.encode(tasks, forKey: .tasks)
    }
}
