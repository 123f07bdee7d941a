import Foundation

/// How deliveries to one endpoint (a tenant's subscriber URL, shared by every session of the tenant that points at
/// it) are going. `healthy → failing → probing → failing …`, until a 2xx makes it `catchingUp` and then `healthy`
/// again, or it is `disabled`.
package enum EndpointHealth: Sendable, Equatable {
    /// Every answer lately was a 2xx, or none was tried.
    case healthy
    /// A 2xx came after failures: the endpoint is healthy, but the sessions' waiting heads are still to be made due.
    case catchingUp
    /// Attempts fail; one probe goes out at `nextProbeAt`.
    case failing(Failure)
    /// Attempts fail, and a probe is out until `until` (then another may go).
    case probing(Failure, until: Date)
    /// Nothing is sent until an operator enables it: a 410 Gone, or failing for longer than the policy allows.
    case disabled(at: Date, reason: String)

    /// A run of failures: since when, how many probes failed, and when the next one goes.
    package struct Failure: Sendable, Equatable {
        package var since: Date
        package var failedProbes: Int
        package var nextProbeAt: Date

        package init(since: Date, failedProbes: Int, nextProbeAt: Date) {
            self.since = since
            self.failedProbes = failedProbes
            self.nextProbeAt = nextProbeAt
        }
    }

    /// The state as the API shows it; catching up shows as healthy.
    package var state: WebhookSubscription.State {
        switch self {
        case .healthy, .catchingUp: .healthy
        case .failing: .failing
        case .probing: .probing
        case .disabled: .disabled
        }
    }

    /// The run of failures under way, if any.
    package var failure: Failure? {
        switch self {
        case .failing(let failure), .probing(let failure, _): failure
        case .healthy, .catchingUp, .disabled: nil
        }
    }
}
