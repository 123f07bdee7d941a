import GRDB
import Testing

@testable import TransferdCore

@Suite struct AppDatabaseTests {
    @Test func opensInWALModeWithEveryMigrationApplied() throws {
        let dataDirectory = TestService.temporaryDataDirectory()
        let database = try AppDatabase(path: dataDirectory + "/transferd.sqlite")

        let journalMode = try database.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journalMode == "wal")
        let applied = try database.pool.read { db in try AppDatabase.migrator().appliedIdentifiers(db) }
        #expect(applied.contains("0001_initial"))
    }

    @Test func migrateAppliesOnceAndThenHasNothingToDo() throws {
        let dataDirectory = TestService.temporaryDataDirectory()
        let all = try AppDatabase.migrator().migrations
        #expect(all.starts(with: ["0001_initial", "0002_webhooks", "0003_task_checksum"]))
        #expect(try migrateDatabase(dataDirectory: dataDirectory) == all)
        #expect(try migrateDatabase(dataDirectory: dataDirectory) == [])
    }
}
