import GRDB
import Testing

@testable import TransferdStorage

@Suite struct JoinLayoutTests {
    /// Rows of `sql` as the repositories read them, each cut by `layout` into parts of (name, value) pairs.
    private func parts(_ sql: String, _ layout: JoinLayout, _ database: DatabaseQueue) throws -> [[[String: Int64?]]] {
        try database.read { db in
            let statement = try db.cachedStatement(sql: sql)
            let rows = try Row.fetchCursor(statement)
            var cut: [[[String: Int64?]]] = []
            while let row = try rows.next() {
                cut.append(
                    StoredRow(row, names: statement.columnNames).parts(layout).map { part in
                        Dictionary(uniqueKeysWithValues: part.columnNames.map { ($0, part[$0] as Int64?) })
                    }
                )
            }
            return cut
        }
    }

    @Test func aJoinsPartsAreReadByTheirOwnNamesAndPositions() throws {
        // setup: two tables whose columns share names, joined with a marker between them
        let database = try DatabaseQueue()
        try database.write { db in
            try db.execute(sql: "CREATE TABLE a (id INTEGER, x INTEGER); CREATE TABLE b (id INTEGER, y INTEGER, z INTEGER)")
            try db.execute(sql: "INSERT INTO a VALUES (1, 10), (2, 20); INSERT INTO b VALUES (7, 70, 700), (8, 80, 800)")
        }
        let layout = JoinLayout(after: ["b_columns"])

        // act
        let rows = try parts("SELECT a.*, NULL AS b_columns, b.* FROM a JOIN b ON b.id = a.id + 6 ORDER BY a.id", layout, database)

        // verify: each part has only its table's columns; `id` is each table's own; positions count from the part
        #expect(rows == [[["id": 1, "x": 10], ["id": 7, "y": 70, "z": 700]], [["id": 2, "x": 20], ["id": 8, "y": 80, "z": 800]]])
    }

    @Test func aResultOfOtherColumnsIsCutAgain() throws {
        // setup: one layout, first used for a result whose marker is at one place
        let database = try DatabaseQueue()
        try database.write { db in
            try db.execute(sql: "CREATE TABLE a (id INTEGER, x INTEGER); CREATE TABLE b (id INTEGER, y INTEGER)")
            try db.execute(sql: "INSERT INTO a VALUES (1, 10); INSERT INTO b VALUES (7, 70)")
        }
        let layout = JoinLayout(after: ["b_columns"])
        _ = try parts("SELECT a.*, NULL AS b_columns, b.* FROM a, b", layout, database)

        // act: the same columns in another order, the marker where it was (a table migrated from an older schema);
        // the marker elsewhere; fewer columns
        let reordered = try parts("SELECT a.x, a.id, NULL AS b_columns, b.y, b.id FROM a, b", layout, database)
        let moved = try parts("SELECT a.id, NULL AS b_columns, b.*, a.x FROM a, b", layout, database)
        let fewer = try parts("SELECT a.x, NULL AS b_columns, b.y FROM a, b", layout, database)

        // verify: each result is read by its own cut, never by the cut a result before it had
        #expect(reordered == [[["x": 10, "id": 1], ["y": 70, "id": 7]]])
        #expect(moved == [[["id": 1], ["id": 7, "y": 70, "x": 10]]])
        #expect(fewer == [[["x": 10], ["y": 70]]])
    }
}
