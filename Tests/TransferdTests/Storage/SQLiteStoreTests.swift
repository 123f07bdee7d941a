import Foundation
import Testing
import TransferdStorage

@Suite struct SQLiteStoreTests {
    @Test func opensInWALModeWithEveryMigrationApplied() async throws {
        let store = try SQLiteStore(dataDirectory: TestService.temporaryDataDirectory())

        #expect(try await store.journalMode() == "wal")
        let (all, applied) = try await store.migrations()
        #expect(Set(all) == applied)
        #expect(applied.contains("0001_initial"))
    }

    @Test func shipsEveryMigrationOfTheMigrationsFolder() throws {
        // A file that Package.swift does not list as a resource would never be applied.
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../Migrations")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }
        #expect(try SQLiteStore.migrator().migrations == files.map { String($0.dropLast(".sql".count)) }.sorted())
    }

    @Test func migrateAppliesOnceAndThenHasNothingToDo() throws {
        let dataDirectory = TestService.temporaryDataDirectory()
        let all = try SQLiteStore.migrator().migrations
        #expect(all.starts(with: ["0001_initial", "0002_webhooks", "0003_task_checksum"]))
        #expect(try SQLiteStore.migrate(dataDirectory: dataDirectory) == all)
        #expect(try SQLiteStore.migrate(dataDirectory: dataDirectory) == [])
    }
}
