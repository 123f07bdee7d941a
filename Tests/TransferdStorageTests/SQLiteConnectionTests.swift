import Foundation
import GRDB
import GRDBSQLite
import Testing

@testable import TransferdStorage

/// Queries stepped by the connection itself and read in place from SQLite's statement.
@Suite struct SQLiteConnectionTests {
    private let database: DatabaseQueue
    private let connection: TransferdStorage.SQLiteConnection

    init() throws {
        database = try DatabaseQueue()
        try database.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, at TEXT, flag INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (1, 'one', '2026-11-29 10:00:00.000', 1), (2, NULL, '2026-11-29 11:00:00.000', 0)")
        }
        connection = TransferdStorage.SQLiteConnection(access: { [database] work in try database.inDatabase { try work($0) } })
    }

    /// The rows of `sql`, each as `read` makes it.
    private func rows<T>(_ sql: String, _ arguments: SQLArguments = [], _ read: (StoredRow) throws -> T) async throws -> [T] {
        try await connection.fetchAll(sql, arguments, read)
    }

    @Test func aRowIsReadByPositionAndByNameWithGRDBsConversions() async throws {
        // act
        let read = try await rows("SELECT * FROM t WHERE id >= ? ORDER BY id", [1]) { row in
            (row[0] as Int64, row["name"] as String?, row["at"] as Date, row["flag"] as Bool)
        }

        // verify: NULL is nil for an optional; dates from their stored text, booleans from integers
        #expect(read.map(\.0) == [1, 2])
        #expect(read.map(\.1) == ["one", nil])
        #expect(read.map(\.2) == [Date(timeIntervalSince1970: 1_795_946_400), Date(timeIntervalSince1970: 1_795_950_000)])
        #expect(read.map(\.3) == [true, false])
    }

    @Test func aNameIsFoundWhateverItsCase() async throws {
        // act: SQLite keeps an alias's case; the repositories ask in lower case, as PostgreSQL names come
        let read = try await rows("SELECT id AS Head_Tenant FROM t WHERE id = 1") { $0["head_tenant"] as Int64 }

        // verify
        #expect(read == [1])
    }

    @Test func aStatementPreparedAgainAfterTheSchemaChangedIsReadByItsNewNames() async throws {
        // setup: the statement's names are known
        _ = try await rows("SELECT * FROM t WHERE id = 1") { $0["name"] as String? }

        // act: a column added before the same query runs again
        try await database.write { try $0.execute(sql: "ALTER TABLE t ADD COLUMN added INTEGER NOT NULL DEFAULT 7") }
        let read = try await rows("SELECT * FROM t WHERE id = 1") { ($0["name"] as String?, $0["added"] as Int64) }

        // verify
        #expect(read.map(\.0) == ["one"])
        #expect(read.map(\.1) == [7])
    }

    @Test func aQueryLetsGoOfItsStatementWhenItsReaderThrows() async throws {
        // act: the reader stops after the first of two rows
        struct Stop: Error {}
        await #expect(throws: Stop.self) { _ = try await rows("SELECT id FROM t ORDER BY id") { _ in throw Stop() } }

        // verify: the statement is reset (a read outside a transaction holds no snapshot), and runs again from its start
        let busy = try await database.read { db in
            sqlite3_stmt_busy(try db.cachedStatement(sql: "SELECT id FROM t ORDER BY id").sqliteStatement)
        }
        #expect(busy == 0)
        #expect(try await rows("SELECT id FROM t ORDER BY id") { $0[0] as Int64 } == [1, 2])
    }

    @Test func aStepThatFailsThrowsSQLitesErrorWithItsStatement() async throws {
        // act: an overflow that SQLite finds only while stepping
        let error = await #expect(throws: DatabaseError.self) {
            _ = try await rows("SELECT abs(id - 9223372036854775807 - 2) FROM t WHERE id = ?", [1]) { $0[0] as Int64 }
        }

        // verify
        #expect(error?.resultCode == .SQLITE_ERROR)
        #expect(error?.message == "integer overflow")
        #expect(error?.sql?.hasPrefix("SELECT abs(") == true)
    }
}
