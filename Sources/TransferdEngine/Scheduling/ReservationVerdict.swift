import TransferdDomain

/// What the task says when a transfer asks to reserve stored bytes before it writes them: how far it may write, stop
/// (it no longer wants the transfer), or stop and wait (its tenant's quota leaves no room for them).
package enum ReservationVerdict: Sendable, Equatable {
    case granted(through: Int64)
    case unwanted
    case overQuota(QuotaBreach)
}
