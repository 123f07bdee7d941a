import Foundation
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// What a scrape samples before the metrics are written: the transfers under way here, the tasks waiting and the
/// deliveries pending in the database (every instance's), the free space of the data directory, and the process's
/// own figures.
package struct MetricsSampler: Sendable {
    let store: any Store
    let transfers: ActiveTransfers
    let disk: DiskSpace
    let metrics: ServiceMetrics

    package init(store: any Store, transfers: ActiveTransfers, disk: DiskSpace, metrics: ServiceMetrics) {
        self.store = store
        self.transfers = transfers
        self.disk = disk
        self.metrics = metrics
    }

    /// Samples every gauge; a database that cannot answer leaves its gauges as they were.
    package func sample() async {
        let active = transfers.all
        for kind in TransferTask.Kind.allCases {
            metrics.set("transferd_transfers_active", [("kind", kind.rawValue)], to: Double(active.count { $0.kind == kind }))
        }
        if let (waiting, backlog) = try? await store.read({ (try $0.tasks.countWaiting(), try $0.deliveries.countPending()) }) {
            for reason in TransferTask.WaitingReason.allCases.map(\.rawValue) + ["queued"] {
                metrics.set("transferd_tasks_waiting", [("reason", reason)], to: Double(waiting[reason] ?? 0))
            }
            metrics.set("transferd_webhook_backlog", to: Double(backlog))
        }
        metrics.set("transferd_disk_free_bytes", to: Double(disk.availableBytes))
        metrics.sampleProcess()
    }
}
