import Foundation
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// What a scrape samples before the metrics are written: the transfers under way here, the tasks waiting and the
/// deliveries pending in the database (every instance's), each tenant's usage against its quotas, webhook endpoints by
/// state and oldest waiting delivery, the statements and retries of a shared database, the database's size, the free
/// space of the data directory, and the process's own figures.
package struct MetricsSampler: Sendable {
    let store: any Store
    let transfers: ActiveTransfers
    let tenants: TenantService
    let disk: DiskSpace
    let metrics: ServiceMetrics
    let clock: any WallClock

    package init(
        store: any Store,
        transfers: ActiveTransfers,
        tenants: TenantService,
        disk: DiskSpace,
        metrics: ServiceMetrics,
        clock: any WallClock
    ) {
        self.store = store
        self.transfers = transfers
        self.tenants = tenants
        self.disk = disk
        self.metrics = metrics
        self.clock = clock
    }

    /// Samples every gauge; a database that cannot answer leaves its gauges as they were.
    package func sample() async {
        let active = transfers.all
        for kind in TransferTask.Kind.allCases {
            metrics.set("transferd_transfers_active", [("kind", kind.rawValue)], to: Double(active.count { $0.kind == kind }))
        }
        if let (waiting, backlog) = try? await store.read({ await (try $0.queue.countWaiting(), try $0.deliveries.countPending()) }) {
            for reason in TransferTask.WaitingReason.allCases.map(\.rawValue) + ["queued"] {
                metrics.set("transferd_tasks_waiting", [("reason", reason)], to: Double(waiting[reason] ?? 0))
            }
            metrics.set("transferd_webhook_backlog", to: Double(backlog))
        }
        let standings = (try? await tenants.standings()) ?? []
        for standing in standings { sample(standing) }
        await sampleWebhooks(standings)
        if let statistics = store.statistics {
            let (statements, retries) = (statistics.statements, statistics.retries)
            for transaction in StoreStatistics.Transaction.allCases {
                let labels = [("transaction", transaction.rawValue)]
                metrics.count("transferd_database_statements_total", labels, total: statements[transaction, default: 0])
                metrics.count("transferd_database_retries_total", labels, total: retries[transaction, default: 0])
            }
        }
        metrics.set("transferd_disk_free_bytes", to: Double(disk.availableBytes))
        if let size = try? await store.read({ try await $0.history.databaseBytes() }) {
            metrics.set("transferd_database_size_bytes", to: Double(size))
        }
        metrics.sampleProcess()
    }

    /// `transferd_webhook_endpoints` by tenant and state, and `transferd_webhook_oldest_pending_seconds` by tenant (0
    /// when nothing waits).
    private func sampleWebhooks(_ standings: [TenantStanding]) async {
        guard let (census, oldest) = try? await store.read({ await (try $0.endpoints.census(), try $0.deliveries.oldestPending()) })
        else { return }
        let now = clock.now
        for standing in standings {
            for state in WebhookSubscription.State.allCases {
                let labels = [("tenant", standing.name), ("state", state.rawValue)]
                metrics.set("transferd_webhook_endpoints", labels, to: Double(census[standing.id]?[state] ?? 0))
            }
            let waited = oldest[standing.id].map { max(0, now.timeIntervalSince($0)) } ?? 0
            metrics.set("transferd_webhook_oldest_pending_seconds", [("tenant", standing.name)], to: waited)
        }
    }

    /// `transferd_tenant_usage` and `transferd_tenant_quota` (absent: no limit) of one tenant, per quota.
    private func sample(_ standing: TenantStanding) {
        let (quota, usage) = (tenants.defaults.overridden(by: standing.quota), standing.usage)
        let figures: [(String, Int64, Int64?)] = [
            ("sessions", Int64(usage.sessions), quota.sessions.map(Int64.init)),
            ("queuedTasks", Int64(usage.queuedTasks), quota.queuedTasks.map(Int64.init)),
            ("storedBytes", usage.storedBytes, quota.storedBytes),
            ("fetches", Int64(usage.fetches), quota.fetches.map(Int64.init)),
        ]
        for (name, used, limit) in figures {
            let labels = [("tenant", standing.name), ("quota", name)]
            metrics.set("transferd_tenant_usage", labels, to: Double(used))
            if let limit { metrics.set("transferd_tenant_quota", labels, to: Double(limit)) }
        }
    }
}
