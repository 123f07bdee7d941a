import Foundation
import GRDB

/// Copies of a data directory's SQLite database: made while the service runs, with SQLite's online backup API, and
/// restored into a data directory of its own. The copy is taken in one step inside one read transaction: the
/// database as it was at one commit, with every commit before it, and (in WAL mode) with no pause for the service's
/// writer or readers. Only the database is copied: downloaded contents, partial and staged files stay in the data
/// directory (or the content store), and the credentials key that seals the secrets in it must be kept apart.
package enum SQLiteBackup {
    /// Why a backup or a restore could not be made.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Copies the database of `dataDirectory` to `destination`, a new file; returns its size in bytes.
    @discardableResult
    package static func copy(dataDirectory: String, to destination: String) throws -> Int64 {
        let source = SQLiteStore.path(dataDirectory: dataDirectory)
        guard FileManager.default.fileExists(atPath: source) else { throw Failure(description: "\(source) does not exist") }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw Failure(description: "\(destination) exists already: a backup is written to a new file")
        }
        try copy(source, to: destination)
        return (try FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber)?.int64Value ?? 0
    }

    /// Makes the backup at `backup` the database of `dataDirectory`, which must not have one yet; the service's next
    /// start migrates it when it comes from an older version.
    package static func restore(from backup: String, into dataDirectory: String) throws {
        let destination = SQLiteStore.path(dataDirectory: dataDirectory)
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw Failure(description: "\(destination) exists already: restore into a data directory without a database")
        }
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        try copy(backup, to: destination)
    }

    /// Copies the database at `source` into `destination` in one step of the online backup API, then checks the copy;
    /// the copy is written beside `destination` and renamed into place, so that a file there is always whole.
    private static func copy(_ source: String, to destination: String) throws {
        var readOnly = Configuration()
        readOnly.readonly = true
        let partial = destination + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            let database = try DatabaseQueue(path: source, configuration: readOnly)
            let copy = try DatabaseQueue(path: partial)
            try database.backup(to: copy)
            try verify(copy, copyOf: source)
            try copy.close()
            try database.close()
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw error as? Failure ?? Failure(description: "\(source) could not be copied: \(error)")
        }
        guard rename(partial, destination) == 0 else { throw Failure(description: "could not rename \(partial) to \(destination)") }
    }

    /// Throws unless `database`, a copy of `name`, passes SQLite's integrity check and holds transferd's schema.
    private static func verify(_ database: DatabaseQueue, copyOf name: String) throws {
        let (integrity, tables) = try database.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try db.tableExists("tasks") && db.tableExists("events"))
        }
        guard integrity == "ok" else { throw Failure(description: "\(name) fails SQLite's integrity check: \(integrity ?? "")") }
        guard tables else { throw Failure(description: "\(name) is not a transferd database") }
    }
}
