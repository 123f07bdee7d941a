/// A tenant, the quota the operator set for it, and what it holds.
package struct TenantStanding: Sendable, Equatable {
    package var id: Int64
    package var name: String
    /// The figures set for this tenant alone; nil ones are the service's.
    package var quota: TenantQuota
    package var usage: TenantUsage

    package init(id: Int64, name: String, quota: TenantQuota, usage: TenantUsage) {
        self.id = id
        self.name = name
        self.quota = quota
        self.usage = usage
    }
}

extension TenantStanding {
    /// The first quota, in the order of their names, that `requests` would take the tenant past, its own figures
    /// overriding `defaults`; nil when every request fits (``QuotaBreach/check(_:limit:used:requested:)``).
    package func breach(of requests: [QuotaBreach.Quota: Int64], defaults: TenantQuota) -> QuotaBreach? {
        let quota = defaults.overridden(by: self.quota)
        for (kind, amount) in requests.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            let (limit, used): (Int64?, Int64) =
                switch kind {
                case .sessions: (quota.sessions.map(Int64.init), Int64(usage.sessions))
                case .queuedTasks: (quota.queuedTasks.map(Int64.init), Int64(usage.queuedTasks))
                case .storedBytes: (quota.storedBytes, usage.storedBytes)
                case .fetches: (quota.fetches.map(Int64.init), Int64(usage.fetches))
                }
            if let breach = QuotaBreach.check(kind, limit: limit, used: used, requested: amount) { return breach }
        }
        return nil
    }
}
