import Foundation
import TransferdDomain

/// The free space of the file system that holds the data directory, against the floor the service keeps.
package struct DiskSpace: Sendable {
    package let directory: String
    package let minimumFreeBytes: Int64

    /// Bytes available to the service, from statvfs.
    package var availableBytes: Int64 {
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { return .max }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    package var isBelowFloor: Bool {
        availableBytes < minimumFreeBytes
    }

    /// Refuses (507) work that needs `bytes` more on disk when they would eat into the floor; with 0, new work of a
    /// size not known yet, refused once the floor is reached.
    package func admit(_ bytes: Int64) throws(DomainError) {
        let available = availableBytes
        guard available - bytes < minimumFreeBytes else { return }
        guard bytes > 0 else {
            throw .insufficientStorage(
                "The data directory has \(available) bytes free, below the \(minimumFreeBytes) this service keeps free; no new work is taken until space is freed."
            )
        }
        throw .insufficientStorage(
            "The request needs \(bytes) bytes, and the data directory has \(available) free of which the service keeps \(minimumFreeBytes); it takes at most \(max(0, available - minimumFreeBytes)) now."
        )
    }

    /// Throws `outOfSpace` (transient: the transfer waits and tries again) when the floor is reached.
    package func checkForTransfer() throws {
        if isBelowFloor {
            throw TransferError(
                code: .outOfSpace,
                message:
                    "The data directory is down to \(availableBytes) free bytes (the floor is \(minimumFreeBytes)); the transfer waits for space."
            )
        }
    }

    package init(
        directory: String,
        minimumFreeBytes: Int64
    ) {
        self.directory = directory
        self.minimumFreeBytes = minimumFreeBytes
    }
}
