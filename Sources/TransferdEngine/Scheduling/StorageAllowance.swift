import Synchronization
import TransferdDomain

/// How far one attempt may write, in the file or the bucket: nothing is written past the bytes its task has reserved
/// of its tenant's stored bytes. A body of known length reserves it whole before its first byte; one that is not
/// known, or grows as it is decoded, reserves a batch ahead whenever it reaches the end of what it holds. A
/// reservation the quota leaves no room for stops the attempt (`overQuota`: the task waits with `storageQuota`).
package final class StorageAllowance: Sendable {
    /// What a body of unknown length reserves ahead of what it needs.
    static let batch: Int64 = 8 << 20

    private let path: StoringPath
    private let transfer: ActiveTransfer
    private let reporter: any TransferReporter
    private let granted: Mutex<Int64>

    /// An allowance for the bytes `transfer` stores by `path`, past `kept`, which its task keeps already.
    init(for path: StoringPath, transfer: ActiveTransfer, reporter: any TransferReporter, kept: Int64) {
        self.path = path
        self.transfer = transfer
        self.reporter = reporter
        granted = Mutex(kept)
    }

    /// The offset the attempt may write up to.
    var through: Int64 { granted.withLock { $0 } }

    /// Returns once the bytes before `end` are reserved, reserving up to `wanted` (a batch past `end` by default);
    /// stops the transfer and throws `CancellationError` when they cannot be (over quota, or the task no longer
    /// wants the transfer).
    func cover(through end: Int64, asFarAs wanted: Int64? = nil) async throws {
        guard end > through else { return }
        switch try await reporter.reserve(transfer, for: path, through: end, asFarAs: wanted ?? end + Self.batch) {
        case .granted(let through): granted.withLock { $0 = max($0, through) }
        case .unwanted:
            transfer.interrupt(.byClient)
            throw CancellationError()
        case .overQuota(let breach):
            transfer.interrupt(.overQuota(breach))
            throw CancellationError()
        }
    }
}
