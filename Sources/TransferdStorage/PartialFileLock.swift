import Foundation
import TransferdDomain

/// One attempt's exclusive hold on a task's partial file (`flock`): only its holder cuts or writes the file.
///
/// A transfer whose lease ran out may go on for a moment before it notices (a loaded machine runs its fence late),
/// and the instance that took the task over must not continue a file that attempt still changes: it waits for the
/// lock instead. The kernel releases the lock when its process dies, so a killed instance holds nothing. On a shared
/// volume the lock needs the file system's support (local disks, NFSv4).
package final class PartialFileLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Takes the lock on the file at `path`, created empty when missing; nil while another attempt holds it.
    package static func take(path: String) throws -> PartialFileLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("open", errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { return nil }
            throw Self.failure("lock", failure)
        }
        return PartialFileLock(descriptor: descriptor)
    }

    /// The file's length now.
    package func size() throws -> Int64 {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw Self.failure("measure", errno) }
        return Int64(status.st_size)
    }

    /// Lets go of the file; call once.
    package func release() {
        close(descriptor)
    }

    private static func failure(_ step: String, _ error: Int32) -> TransferError {
        TransferError(code: .cannotWriteToFile, message: "Could not \(step) the partial file (errno \(error)).")
    }
}
