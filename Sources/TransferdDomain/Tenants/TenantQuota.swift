/// What one tenant may hold and run where the operator set it apart from the service's defaults (`transferd tenants
/// set`); nil leaves the default.
package struct TenantQuota: Sendable, Equatable, Codable {
    /// Live (not invalidated) sessions.
    package var sessions: Int?
    /// Tasks not completed (suspended, queued, transferring) across the tenant's sessions.
    package var queuedTasks: Int?
    /// Bytes kept on disk for the tenant: downloaded contents, reply bodies, partial files and staged files.
    package var storedBytes: Int64?
    /// Workers the tenant holds while another tenant's work waits (the service's `--max-transfers-per-tenant`).
    package var transfers: Int?
    /// Fetch schedules across the tenant's live sessions.
    package var fetches: Int?
    /// The bandwidth the tenant's transfers share, by time of day in UTC (``BandwidthSchedule``); nil: none.
    package var bandwidthSchedule: String?

    /// `bandwidthSchedule` read; nil also for one that no longer reads (it was checked when set).
    package var bandwidth: BandwidthSchedule? {
        bandwidthSchedule.flatMap { try? BandwidthSchedule(utc: $0) }
    }

    package init(
        sessions: Int? = nil,
        queuedTasks: Int? = nil,
        storedBytes: Int64? = nil,
        transfers: Int? = nil,
        fetches: Int? = nil,
        bandwidthSchedule: String? = nil
    ) {
        self.sessions = sessions
        self.queuedTasks = queuedTasks
        self.storedBytes = storedBytes
        self.transfers = transfers
        self.fetches = fetches
        self.bandwidthSchedule = bandwidthSchedule
    }

    /// This quota with `other`'s figures where `other` sets them.
    package func overridden(by other: TenantQuota) -> TenantQuota {
        TenantQuota(
            sessions: other.sessions ?? sessions,
            queuedTasks: other.queuedTasks ?? queuedTasks,
            storedBytes: other.storedBytes ?? storedBytes,
            transfers: other.transfers ?? transfers,
            fetches: other.fetches ?? fetches,
            bandwidthSchedule: other.bandwidthSchedule ?? bandwidthSchedule
        )
    }
}
