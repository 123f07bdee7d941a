import TransferdDomain

/// Performs one attempt of a claimed task of one kind: the scheduler picks the runner by the job's ``TransferJob/Work``
/// case and hands it that case's data.
package protocol TransferRunner: Sendable {
    /// The kind's own part of the job.
    associatedtype Work: Sendable

    /// Runs the attempt to its outcome under the job's supervision (deadlines, throughput floor, cancellation).
    func run(_ job: TransferJob, _ work: Work, transfer: ActiveTransfer) async -> TaskStateMachine.TransferOutcome
}
