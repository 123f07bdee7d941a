import Foundation

/// Which instance runs a task's transfer, and until when: the owner renews it while the transfer runs, and one
/// that dies loses it when it expires, so that another instance continues the task from its checkpoint.
package struct TaskLease: Codable, Sendable, Equatable {
    /// The instance's id (`Instance.id`).
    package var owner: String
    package var expiresAt: Date

    package init(owner: String, expiresAt: Date) {
        self.owner = owner
        self.expiresAt = expiresAt
    }

    /// Whether the owner still holds it at `now`: a transfer is then under way.
    package func isLive(at now: Date) -> Bool {
        expiresAt > now
    }
}
