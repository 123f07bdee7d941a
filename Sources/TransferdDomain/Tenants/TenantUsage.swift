/// What one tenant holds now, counted as its quotas count it.
package struct TenantUsage: Sendable, Equatable {
    package var sessions: Int
    package var queuedTasks: Int
    package var storedBytes: Int64

    package init(sessions: Int = 0, queuedTasks: Int = 0, storedBytes: Int64 = 0) {
        self.sessions = sessions
        self.queuedTasks = queuedTasks
        self.storedBytes = storedBytes
    }
}
