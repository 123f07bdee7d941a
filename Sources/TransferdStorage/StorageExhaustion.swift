import Foundation
import GRDB
import NIOCore
import PostgresNIO
import _NIOFileSystem

/// An error that says a disk is full, and whose: the database's (SQLite's `SQLITE_FULL`, PostgreSQL's `disk_full`)
/// or the data directory's (`ENOSPC`, `EDQUOT` from a file write). Neither is the client's fault nor a bug: the API
/// answers 503 (the database's, with `Retry-After`) or 507 (the files'), and the engine waits for space.
package enum StorageExhaustion: Equatable, Sendable {
    case database
    case files

    /// The exhaustion `error` (or an error it wraps) reports; nil for any other error.
    package init?(_ error: any Error) {
        switch error {
        case let error as DatabaseError where error.resultCode == .SQLITE_FULL:
            self = .database
        case let error as PSQLError where error.serverInfo?[.sqlState] == "53100":
            self = .database
        case let error as FileSystemError:
            guard let cause = error.cause, let exhaustion = StorageExhaustion(cause) else { return nil }
            self = exhaustion
        case let error as FileSystemError.SystemCallError where Self.spaceErrors.contains(error.errno.rawValue):
            self = .files
        case let error as IOError where Self.spaceErrors.contains(error.errnoCode):
            self = .files
        case let error as POSIXError where Self.spaceErrors.contains(error.code.rawValue):
            self = .files
        case let error as CocoaError where error.code == .fileWriteOutOfSpace:
            self = .files
        default:
            return nil
        }
    }

    private static let spaceErrors: Set<Int32> = [ENOSPC, EDQUOT]
}
