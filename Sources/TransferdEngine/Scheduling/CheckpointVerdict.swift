import TransferdDomain

/// What the task says of a download's checkpoint: go on, stop (it no longer wants the transfer), or stop and wait
/// (its tenant keeps as many bytes as its quota allows).
package enum CheckpointVerdict: Sendable, Equatable {
    case proceed
    case unwanted
    case overQuota(QuotaBreach)
}
