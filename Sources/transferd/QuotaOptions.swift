import ArgumentParser
import TransferdDomain

/// The quota figures an operator sets for a tenant; each a number, or `default` for the service's own
/// (`--max-sessions-per-tenant` and the like, given to `serve`). Unset options leave the figure as it was.
struct QuotaOptions: ParsableArguments {
    /// A figure given on the command line.
    enum Figure: ExpressibleByArgument, Equatable {
        case value(Int64)
        case serviceDefault

        init?(argument: String) {
            if argument == "default" {
                self = .serviceDefault
            } else if let value = Int64(argument), value >= 0 {
                self = .value(value)
            } else {
                return nil
            }
        }

        var number: Int64? {
            if case .value(let value) = self { value } else { nil }
        }
    }

    @Option(help: "Live sessions the tenant may have, or `default`.") var sessions: Figure?
    @Option(help: "Unfinished tasks the tenant may have, or `default`.") var queuedTasks: Figure?
    @Option(help: "Bytes the tenant may keep on disk (contents, partial and staged files), or `default`.") var storedBytes: Figure?
    @Option(help: "Workers the tenant holds while another tenant's work waits, or `default`.") var transfers: Figure?
    @Option(help: "Fetch schedules the tenant may have across its sessions, or `default`.") var fetches: Figure?
    @Option(
        help:
            "The bandwidth the tenant's transfers share by time of day in UTC, as `mon-fri 08:00-18:00=10M, *=off` (docs/bandwidth.md), or `default` for none."
    )
    var bandwidth: String?

    var isEmpty: Bool { [sessions, queuedTasks, storedBytes, transfers, fetches].allSatisfy { $0 == nil } && bandwidth == nil }

    func validate() throws {
        guard let bandwidth, bandwidth != "default" else { return }
        do {
            _ = try BandwidthSchedule(utc: bandwidth)
        } catch {
            throw ValidationError("--bandwidth is not a bandwidth schedule: \(error).")
        }
    }

    /// Applies the figures given to `quota`.
    func apply(to quota: inout TenantQuota) {
        if let sessions { quota.sessions = sessions.number.map { Int($0) } }
        if let queuedTasks { quota.queuedTasks = queuedTasks.number.map { Int($0) } }
        if let storedBytes { quota.storedBytes = storedBytes.number }
        if let transfers { quota.transfers = transfers.number.map { Int($0) } }
        if let fetches { quota.fetches = fetches.number.map { Int($0) } }
        if let bandwidth { quota.bandwidthSchedule = bandwidth == "default" ? nil : try? BandwidthSchedule(utc: bandwidth).description }
    }
}
