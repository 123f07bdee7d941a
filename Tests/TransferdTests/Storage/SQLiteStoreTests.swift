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

    @Test func migrateAppliesOnceAndThenHasNothingToDo() throws {
        let dataDirectory = TestService.temporaryDataDirectory()
        let all = try SQLiteStore.migrator().migrations
        #expect(all.starts(with: ["0001_initial", "0002_webhooks", "0003_task_checksum"]))
        #expect(try SQLiteStore.migrate(dataDirectory: dataDirectory) == all)
        #expect(try SQLiteStore.migrate(dataDirectory: dataDirectory) == [])
    }
}
