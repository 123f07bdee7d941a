import TransferdDomain
import TransferdStorage

extension DiskSpace {
    /// Refuses new work that would eat into the free-space floor.
    func refuseNewWorkWhenLow() throws(DomainError) {
        guard !isBelowFloor else {
            throw .insufficientStorage(
                "The data directory has \(availableBytes) bytes free, below the \(minimumFreeBytes) this service keeps free; no new work is taken until space is freed."
            )
        }
    }
}
