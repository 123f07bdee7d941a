import Hummingbird
import TransferdDomain

/// The requesting key's tenant as `GET /v1/tenant` shows it: each quota's figure (null: no limit) against what the
/// tenant holds, and its bandwidth schedule.
struct TenantResponse: ResponseEncodable, Sendable {
    /// One quota: its figure and the tenant's usage.
    struct Figure: Encodable, Sendable {
        @ExplicitNull var limit: Int64?
        var used: Int64
    }

    /// The workers the tenant holds while another tenant's work waits (null: the service's share).
    struct Share: Encodable, Sendable {
        @ExplicitNull var limit: Int64?
    }

    struct Quotas: Encodable, Sendable {
        var sessions: Figure
        var queuedTasks: Figure
        var storedBytes: Figure
        var fetches: Figure
        var transfers: Share
    }

    var name: String
    /// The bandwidth schedule its transfers share (null: none).
    @ExplicitNull var bandwidthSchedule: String?
    var quotas: Quotas

    init(_ standing: TenantStanding) {
        let (quota, usage) = (standing.quota, standing.usage)
        name = standing.name
        bandwidthSchedule = quota.bandwidthSchedule
        quotas = Quotas(
            sessions: Figure(limit: quota.sessions.map(Int64.init), used: Int64(usage.sessions)),
            queuedTasks: Figure(limit: quota.queuedTasks.map(Int64.init), used: Int64(usage.queuedTasks)),
            storedBytes: Figure(limit: quota.storedBytes, used: usage.storedBytes),
            fetches: Figure(limit: quota.fetches.map(Int64.init), used: Int64(usage.fetches)),
            transfers: Share(limit: quota.transfers.map(Int64.init))
        )
    }
}
