/// What one tenant, session or task may take of the service, and the free disk space it keeps.
package struct ResourceLimits: Sendable {
    package var maximumSessionsPerTenant: Int
    package var maximumTasksPerSession: Int
    /// Fetch schedules in one session.
    package var maximumFetchesPerSession: Int
    /// Fetch schedules across a tenant's sessions.
    package var maximumFetchesPerTenant: Int
    /// Tasks not completed (suspended, queued, transferring) across a tenant's sessions.
    package var maximumQueuedTasksPerTenant: Int
    /// Bytes one tenant keeps on disk (contents, replies, partial and staged files); nil for no limit.
    package var maximumStoredBytesPerTenant: Int64?
    /// The largest download; a task's `maxBytes` may only lower it.
    package var maximumDownloadBytes: Int64
    /// Below this much free space in the data directory, new work is refused (507) and transfers wait.
    package var minimumFreeDiskBytes: Int64

    package init(
        maximumSessionsPerTenant: Int = 1000,
        maximumTasksPerSession: Int = 100_000,
        maximumFetchesPerSession: Int = 100,
        maximumFetchesPerTenant: Int = 1000,
        maximumQueuedTasksPerTenant: Int = 10_000,
        maximumStoredBytesPerTenant: Int64? = nil,
        maximumDownloadBytes: Int64 = 1 << 40,
        minimumFreeDiskBytes: Int64 = 1 << 30
    ) {
        self.maximumSessionsPerTenant = maximumSessionsPerTenant
        self.maximumTasksPerSession = maximumTasksPerSession
        self.maximumFetchesPerSession = maximumFetchesPerSession
        self.maximumFetchesPerTenant = maximumFetchesPerTenant
        self.maximumQueuedTasksPerTenant = maximumQueuedTasksPerTenant
        self.maximumStoredBytesPerTenant = maximumStoredBytesPerTenant
        self.maximumDownloadBytes = maximumDownloadBytes
        self.minimumFreeDiskBytes = minimumFreeDiskBytes
    }

    /// The quota of a tenant the operator set nothing for.
    package var defaultQuota: TenantQuota {
        TenantQuota(
            sessions: maximumSessionsPerTenant,
            queuedTasks: maximumQueuedTasksPerTenant,
            storedBytes: maximumStoredBytesPerTenant,
            fetches: maximumFetchesPerTenant
        )
    }
}
