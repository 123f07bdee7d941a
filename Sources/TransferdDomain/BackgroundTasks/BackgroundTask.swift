import Foundation

/// A finite-length background task, after `beginBackgroundTask(expirationHandler:)`: a deadline-scoped group of
/// transfers. Its transfers run ahead of the session's others while it is active; shortly before the deadline
/// `background_task.expiring` is written (the expiration handler's moment), and at the deadline its unfinished
/// transfers are cancelled.
package struct BackgroundTask: Codable, Sendable, Equatable, Persisted {
    package enum State: String, Codable, Sendable, CaseIterable {
        /// The clock runs.
        case active
        /// endBackgroundTask: the clock stopped; its transfers go on as ordinary ones.
        case ended
        /// Every bound transfer completed before the deadline.
        case completed
        /// The deadline passed; unfinished transfers were cancelled.
        case expired
    }

    package var id: Int64?
    package var publicId: String
    package var sessionId: Int64
    package var name: String
    package var state: State
    /// Seconds granted (the request, capped by `--max-background-task-duration`).
    package var grantedDuration: Double
    /// Seconds before `expiresAt` that `background_task.expiring` is written.
    package var expirationWarning: Double
    /// Wall clock, so that a deadline survives restarts.
    package var expiresAt: Date
    package var warned: Bool
    package var createdAt: Date
    package var endedAt: Date?

    /// A background task as stored.
    package init(
        id: Int64?,
        publicId: String,
        sessionId: Int64,
        name: String,
        state: State,
        grantedDuration: Double,
        expirationWarning: Double,
        expiresAt: Date,
        warned: Bool,
        createdAt: Date,
        endedAt: Date?
    ) {
        self.id = id
        self.publicId = publicId
        self.sessionId = sessionId
        self.name = name
        self.state = state
        self.grantedDuration = grantedDuration
        self.expirationWarning = expirationWarning
        self.expiresAt = expiresAt
        self.warned = warned
        self.createdAt = createdAt
        self.endedAt = endedAt
    }

    /// beginBackgroundTask at `now`: `duration` seconds granted, at most `cap`.
    package init(publicID: String, sessionID: Int64, name: String, duration: Double, cap: Double, expirationWarning: Double, now: Date) {
        let granted = min(duration, cap)
        publicId = publicID
        sessionId = sessionID
        self.name = name
        state = .active
        grantedDuration = granted
        self.expirationWarning = min(expirationWarning, granted)
        expiresAt = now.addingTimeInterval(granted)
        warned = false
        createdAt = now
    }

    /// When `background_task.expiring` is due.
    package var warningAt: Date {
        expiresAt.addingTimeInterval(-expirationWarning)
    }

    /// backgroundTimeRemaining: seconds until the deadline while active, 0 once expired, frozen once ended.
    package func remaining(at now: Date) -> Double {
        switch state {
        case .active: max(0, expiresAt.timeIntervalSince(now))
        case .expired: 0
        case .ended, .completed: max(0, expiresAt.timeIntervalSince(endedAt ?? now))
        }
    }
}
