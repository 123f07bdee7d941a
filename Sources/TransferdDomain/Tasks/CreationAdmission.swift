/// Whether a session takes new tasks: the one rule every creation of tasks is held to. The transaction that creates
/// them decides it over the session and tenant it read (``decide(session:tasksInSession:tenant:)``); PostgreSQL's
/// creation in one statement (``TaskCreation``) carries out the same comparisons in its SQL, over the session's row
/// and the tenant's standing as the statement reads them, with this value's figures as its arguments.
package struct CreationAdmission: Sendable, Equatable {
    /// How many tasks are created.
    package let count: Int
    /// Whether a download is among them: the tenant must then have stored bytes left (``QuotaBreach``).
    package let needsStorage: Bool
    /// The most tasks a session may hold, finished ones included.
    package let maximumTasksPerSession: Int
    /// The service's quotas, which a tenant's own override.
    package let defaultQuota: TenantQuota

    package init(count: Int, needsStorage: Bool, maximumTasksPerSession: Int, defaultQuota: TenantQuota) {
        (self.count, self.needsStorage) = (count, needsStorage)
        (self.maximumTasksPerSession, self.defaultQuota) = (maximumTasksPerSession, defaultQuota)
    }

    /// Why the tasks are refused.
    package enum Refusal: Sendable, Equatable {
        /// The session is gone (nil) or no longer active.
        case sessionNotActive(Session.State?)
        /// The session holds `tasks`, and the new ones would take it past its most.
        case sessionFull(tasks: Int)
        /// A quota of the tenant would be passed.
        case quota(QuotaBreach)
    }

    /// What the tasks ask of their tenant's quotas: as many queued tasks, and stored bytes left for a download.
    package var quotaRequests: [QuotaBreach.Quota: Int64] {
        var requests: [QuotaBreach.Quota: Int64] = [.queuedTasks: Int64(count)]
        if needsStorage { requests[.storedBytes] = 0 }
        return requests
    }

    /// Why a session in `state` (nil: gone) holding `tasksInSession` tasks, of the tenant of `tenant` (nil: gone,
    /// which holds it to nothing), refuses the tasks; nil when it takes them. The session's state counts first, then
    /// its most, then the tenant's quotas.
    package func decide(session state: Session.State?, tasksInSession: Int, tenant: TenantStanding?) -> Refusal? {
        guard state == .active else { return .sessionNotActive(state) }
        guard tasksInSession + count <= maximumTasksPerSession else { return .sessionFull(tasks: tasksInSession) }
        return tenant?.breach(of: quotaRequests, defaults: defaultQuota).map(Refusal.quota)
    }
}

extension CreationAdmission.Refusal {
    /// What the client reads, for the session named `identifier`.
    package func error(session identifier: String) -> DomainError {
        switch self {
        case .sessionNotActive(let state): .conflict("The session is \(state?.rawValue ?? "gone") and accepts no new tasks.")
        case .sessionFull(let tasks): .limitExceeded("Session `\(identifier)` has \(tasks) tasks, the most a session may have.")
        case .quota(let breach): .quotaExceeded(breach)
        }
    }
}
