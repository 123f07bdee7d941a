import Foundation
import TransferdDomain

/// An endpoint's row: its health as a state and the columns each state uses.
extension WebhookEndpoint {
    static let table = "webhook_endpoints"

    /// The stored names of the states; catching up is a state of its own, shown as healthy.
    private enum StoredState: String {
        case healthy, catchingUp = "catching_up", failing, probing, disabled
    }

    init(row: StoredRow) throws {
        let state: StoredState = try RowCoding.enumeration(row, "state")
        func failure() -> EndpointHealth.Failure {
            EndpointHealth.Failure(since: row["failing_since"], failedProbes: row["failed_probes"], nextProbeAt: row["next_probe_at"])
        }
        let health: EndpointHealth =
            switch state {
            case .healthy: .healthy
            case .catchingUp: .catchingUp
            case .failing: .failing(failure())
            case .probing: .probing(failure(), until: row["probe_until"])
            case .disabled: .disabled(at: row["disabled_at"], reason: row["disabled_reason"])
            }
        self.init(key: row["key"], tenantId: row["tenant_id"], health: health, lastError: row["last_error"], updatedAt: row["updated_at"])
    }

    /// Every column of the row, its key first; a state's unused columns are NULL.
    func storedColumns() -> StoredColumns {
        let failure = health.failure
        let (state, probeUntil, disabled): (StoredState, Date?, (at: Date, reason: String)?) =
            switch health {
            case .healthy: (.healthy, nil, nil)
            case .catchingUp: (.catchingUp, nil, nil)
            case .failing: (.failing, nil, nil)
            case .probing(_, let until): (.probing, until, nil)
            case .disabled(let at, let reason): (.disabled, nil, (at, reason))
            }
        return [
            "key": key,
            "tenant_id": tenantId,
            "state": state.rawValue,
            "failing_since": StoredDate.text(orNil: failure?.since),
            "failed_probes": failure?.failedProbes ?? 0,
            "next_probe_at": StoredDate.text(orNil: failure?.nextProbeAt),
            "probe_until": StoredDate.text(orNil: probeUntil),
            "disabled_at": StoredDate.text(orNil: disabled?.at),
            "disabled_reason": disabled?.reason,
            "last_error": lastError,
            "updated_at": StoredDate.text(updatedAt),
        ]
    }

    /// The state as the API shows it, from the `state` column of a row joined to a subscription's (NULL: healthy).
    static func shownState(_ stored: String?) throws -> WebhookSubscription.State {
        guard let stored else { return .healthy }
        let state: StoredState = try RowCoding.enumeration(stored, "endpoint_state")
        return switch state {
        case .healthy, .catchingUp: .healthy
        case .failing: .failing
        case .probing: .probing
        case .disabled: .disabled
        }
    }
}
