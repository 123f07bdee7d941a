import Synchronization
import TransferdDomain
import _NIOFileSystem

/// The checkpoints of one attempt. Each flushes the partial file to disk, then records the flushed prefix as
/// the task's `partialBytes` with its counters (and `task.progress` when bytes arrived since the last one), after the
/// attempt's response when no write has recorded it yet.
/// Only flushed bytes are recorded, so after a crash the file can be cut back to the checkpoint and trusted.
///
/// A checkpoint the store cannot take (the database is unreachable) is skipped: the transfer goes on, and the next
/// checkpoint records what this one would have. One the task refuses (it no longer wants this transfer, or its tenant
/// is over its quota of stored bytes) stops it.
package final class Checkpoints: Sendable {
    private let handle: ReadWriteFileHandle
    private let transfer: ActiveTransfer
    private let prefix: BodyWriter.Mark
    private let reporter: any TransferReporter
    /// What the last checkpoint recorded: bytes received, and the flushed prefix.
    private let reported: Mutex<(received: Int64, flushed: Int64)>

    init(
        handle: ReadWriteFileHandle,
        transfer: ActiveTransfer,
        prefix: BodyWriter.Mark,
        reporter: any TransferReporter
    ) {
        self.handle = handle
        self.transfer = transfer
        self.prefix = prefix
        self.reporter = reporter
        reported = Mutex((transfer.counters.received, prefix.value))
    }

    /// Takes one checkpoint; callers take them one at a time.
    package func take() async throws {
        let flushed = prefix.value
        try await handle.synchronize()
        let (received, expected) = transfer.counters
        let previous = reported.withLock { $0 }
        guard received != previous.received || flushed != previous.flushed || transfer.unrecordedResponse != nil else { return }
        let verdict: CheckpointVerdict
        do {
            verdict = try await reporter.checkpoint(
                transfer,
                received: received,
                expected: expected,
                bytesWritten: received - previous.received,
                partialBytes: flushed
            )
        } catch {
            return
        }
        switch verdict {
        case .proceed: reported.withLock { $0 = (received, flushed) }
        case .unwanted: transfer.interrupt(.byClient)
        case .overQuota(let breach):
            reported.withLock { $0 = (received, flushed) }
            transfer.interrupt(.overQuota(breach))
        }
    }

    /// Takes the attempt's last checkpoint once its writing ended, even when the attempt was cancelled (it is when
    /// it stalled, outlived its resource timeout or ran out of space): the checkpoint runs apart from it.
    package func takeLast() async {
        await Task { try? await take() }.value
    }
}
