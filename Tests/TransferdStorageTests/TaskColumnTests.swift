import GRDB
import Testing
import TransferdTestSupport

@testable import TransferdStorage

@Suite struct TaskColumnTests {
    @Test func taskColumnsAreTheTablesColumnsInItsOrder() throws {
        // setup: the schema every migration builds
        let database = try DatabaseQueue()
        try SQLiteStore.migrator().migrate(database)

        // act
        let table = try database.read { db in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('tasks') ORDER BY cid") }

        // verify: a task is read by position, so a column added by a migration needs its case, at the same place
        let cases = TaskColumn.allCases.map { column in
            String(describing: column).reduce(into: "") { name, character in
                name += character.isUppercase ? "_" + character.lowercased() : String(character)
            }
        }
        #expect(cases == table)
    }
}
