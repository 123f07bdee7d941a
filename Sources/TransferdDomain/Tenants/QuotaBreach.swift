/// A request refused because it would take a tenant past one of its quotas: which quota, its figure, what the tenant
/// holds and what the request would add.
package struct QuotaBreach: Sendable, Equatable {
    package enum Quota: String, Sendable, Equatable {
        case sessions, queuedTasks, storedBytes, fetches
    }

    package var quota: Quota
    package var limit: Int64
    package var used: Int64
    package var requested: Int64

    package init(quota: Quota, limit: Int64, used: Int64, requested: Int64) {
        self.quota = quota
        self.limit = limit
        self.used = used
        self.requested = requested
    }

    /// The breach when `used + requested` passes `limit`, or when nothing is left of it for a request of 0; nil when
    /// it fits or there is no limit.
    package static func check(_ quota: Quota, limit: Int64?, used: Int64, requested: Int64) -> QuotaBreach? {
        guard let limit, used + requested > limit || (requested == 0 && used >= limit) else { return nil }
        return QuotaBreach(quota: quota, limit: limit, used: used, requested: requested)
    }

    /// What the client reads.
    package var detail: String {
        switch quota {
        case .sessions:
            "This tenant's quota of sessions is \(limit) and it has \(used) live; invalidate one first."
        case .queuedTasks:
            "This tenant's quota of queued tasks is \(limit); it has \(used) unfinished and the request adds \(requested). Wait for some to complete."
        case .storedBytes where requested == 0:
            "This tenant's quota of stored bytes is \(limit) and it keeps \(used), which leaves nothing for a download. Delete contents or files first."
        case .storedBytes:
            "This tenant's quota of stored bytes is \(limit); it keeps \(used) and the request needs \(requested) more. Delete contents or files first."
        case .fetches:
            "This tenant's quota of fetch schedules is \(limit) and it has \(used) across its sessions; delete one first."
        }
    }
}
