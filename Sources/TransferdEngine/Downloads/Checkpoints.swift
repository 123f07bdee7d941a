import Synchronization
import TransferdDomain

/// The checkpoints of one attempt. Each makes what the attempt kept durable (`durable`: the partial file flushed to
/// disk, or the parts a bucket acknowledged), then records it as the task's `partialBytes` with its counters (and
/// `task.progress` when bytes arrived since the last one), after the attempt's response when no write has recorded it
/// yet. Only durable bytes are recorded, so after a crash the attempt that follows can trust them.
///
/// A checkpoint the store cannot take (the database is unreachable) is skipped: the transfer goes on, and the next
/// checkpoint records what this one would have. One the task refuses (it no longer wants this transfer, or its tenant
/// is over its quota of stored bytes) stops it.
package final class Checkpoints: Sendable {
    /// What the attempt holds durably: its bytes (the prefix), the ranges past them of a download from several
    /// sources, and the multipart upload holding them for a download into a bucket.
    typealias Durable = @Sendable () async throws -> (bytes: Int64, keptRanges: KeptRanges?, objectUpload: ObjectUploadProgress?)

    private let transfer: ActiveTransfer
    private let durable: Durable
    private let reporter: any TransferReporter
    /// What the last checkpoint recorded: bytes received, the durable prefix and the ranges past it.
    private let reported: Mutex<(received: Int64, kept: Int64, ranges: KeptRanges?)>

    init(transfer: ActiveTransfer, kept: Int64, reporter: any TransferReporter, durable: @escaping Durable) {
        self.transfer = transfer
        self.durable = durable
        self.reporter = reporter
        reported = Mutex((transfer.counters.received, kept, nil))
    }

    /// Takes one checkpoint; callers take them one at a time.
    package func take() async throws {
        let (kept, ranges, objectUpload) = try await durable()
        let (received, expected) = transfer.counters
        let previous = reported.withLock { $0 }
        guard received != previous.received || kept != previous.kept || ranges != previous.ranges || transfer.unrecordedResponse != nil
        else { return }
        let verdict: CheckpointVerdict
        do {
            verdict = try await reporter.checkpoint(
                transfer,
                received: received,
                expected: expected,
                bytesWritten: received - previous.received,
                partialBytes: kept,
                keptRanges: ranges,
                // The parts list is written when it grew, not at every checkpoint: it is the bulk of the row.
                objectUpload: kept != previous.kept ? objectUpload : nil
            )
        } catch {
            return
        }
        switch verdict {
        case .proceed: reported.withLock { $0 = (received, kept, ranges) }
        case .unwanted: transfer.interrupt(.byClient)
        case .overQuota(let breach):
            reported.withLock { $0 = (received, kept, ranges) }
            transfer.interrupt(.overQuota(breach))
        }
    }

    /// Takes the attempt's last checkpoint once its writing ended, even when the attempt was cancelled (it is when
    /// it stalled, outlived its resource timeout or ran out of space): the checkpoint runs apart from it.
    package func takeLast() async {
        await Task { try? await take() }.value
    }
}
