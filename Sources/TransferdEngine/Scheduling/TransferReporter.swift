import Foundation
import TransferdDomain

/// What the engine tells about the transfers it runs: its one way out. The task service implements it, writing each
/// report, and the events it causes, in one transaction.
package protocol TransferReporter: Sendable {
    /// Before the first claim after a start: takes back what the previous run of this instance held, and applies
    /// background-task deadlines that passed while the service was down.
    func prepareQueue() async throws
    /// Takes back the tasks whose leases expired at `now` (their instance died or lost the database): a canceling one
    /// completes, a running one is queued again, to continue from its checkpoint. False when there was none.
    func takeBackExpiredLeases(at now: Date) async throws -> Bool
    /// willPerformHTTPRedirection: a download's request was redirected from `from` to `to`, and followed or not.
    func redirected(_ transfer: ActiveTransfer, statusCode: Int, from: String, to: String, followed: Bool) async throws
    /// A download with mirrors gave up one of its sources for the rest of the attempt (`task.source_dropped`).
    func sourceDropped(_ transfer: ActiveTransfer, _ dropped: SourceDropped) async throws
    /// didReceiveResponse of an upload: the final response head and the URL it came from. (A download's is kept on its
    /// transfer, `ActiveTransfer.responseArrived`, and recorded by its next checkpoint or its end.)
    ///
    /// Each report names the `transfer` it comes from, and is not recorded once that transfer is no longer the one
    /// this instance runs for the task: a late report of an attempt that was stopped must not overwrite what the next
    /// attempt recorded (a checkpoint past the bytes the next attempt kept).
    func responseReceived(_ transfer: ActiveTransfer, url: String, response: TransferResponse, start: AttemptStart?) async throws
    /// A download's checkpoint: its counters and the prefix of the partial file flushed to disk with the ranges past it
    /// that a download from several sources flushed (or, into a bucket,
    /// the bytes of the parts acknowledged and its multipart upload), after its response when that is unrecorded;
    /// `bytesWritten` arrived since the last one. `unwanted` when the task no longer wants
    /// the transfer (suspended, cancelled, or leased to another instance), `overQuota` when its tenant keeps more than
    /// its quota of stored bytes, reservations counted (it was lowered; recorded still): either way the transfer must
    /// stop.
    func checkpoint(
        _ transfer: ActiveTransfer,
        received: Int64,
        expected: Int64,
        bytesWritten: Int64,
        partialBytes: Int64,
        keptRanges: KeptRanges?,
        objectUpload: ObjectUploadProgress?
    ) async throws -> CheckpointVerdict
    /// Reserves the tenant's stored bytes for what the transfer will write by `path` before it writes them, so that its
    /// reservation covers the offset `needed` at least and `wanted` when the quota leaves room (``StorageGrant``);
    /// `overQuota` when even `needed` does not fit, `unwanted` as for `checkpoint`.
    func reserve(
        _ transfer: ActiveTransfer,
        for path: StoringPath,
        through needed: Int64,
        asFarAs wanted: Int64
    ) async throws -> ReservationVerdict
    /// A download into a bucket began its multipart upload: recorded before any part goes. False when the task no
    /// longer wants the transfer.
    func objectUploadBegun(_ transfer: ActiveTransfer, objectUpload: ObjectUploadProgress) async throws -> Bool
    /// didSendBodyData: an upload's counters; `bytesSent` went out since the last report. False as for `checkpoint`.
    func uploadProgress(_ transfer: ActiveTransfer, sent: Int64, expected: Int64, bytesSent: Int64) async throws -> Bool
    /// The body of an upload's final response was kept.
    func replyKept(_ transfer: ActiveTransfer, reply: StoredReply) async throws
    /// The attempt has stopped with `outcome` after `bytes` (its response recorded first, when unrecorded); its lease
    /// ends. `release` unregisters the transfer and lets go of its partial file once the end is committed: until then
    /// the transfer counts as under way and its lease is renewed, so that a write that runs again (a conflict on
    /// PostgreSQL) still finds the task leased to this attempt. A download that succeeded has published its content
    /// already; an end that does not give it to the task (the lease was lost, the task is being cancelled) removes
    /// it before `release`. An outcome from an instance that lost the lease is not recorded.
    func transferEnded(
        _ transfer: ActiveTransfer,
        outcome: TaskStateMachine.TransferOutcome,
        bytes: Int64,
        release: @escaping @Sendable () -> Void
    )
        async throws
}
