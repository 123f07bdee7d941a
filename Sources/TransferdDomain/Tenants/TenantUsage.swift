/// What one tenant holds now, counted as its quotas count it.
package struct TenantUsage: Sendable, Equatable {
    package var sessions: Int
    package var queuedTasks: Int
    package var storedBytes: Int64
    /// Counted apart, where it is shown or a schedule is created: the hot paths that read a standing (every task
    /// creation) do not pay for it.
    package var fetches: Int

    package init(sessions: Int = 0, queuedTasks: Int = 0, storedBytes: Int64 = 0, fetches: Int = 0) {
        self.sessions = sessions
        self.queuedTasks = queuedTasks
        self.storedBytes = storedBytes
        self.fetches = fetches
    }
}
