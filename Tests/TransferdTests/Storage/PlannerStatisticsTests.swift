import Foundation
import Testing

/// A table that grows from empty is analyzed by the service itself, without waiting for autovacuum's next round, so
/// that the plans its connections made while the table was empty are made again (a read of one task by its key had
/// kept a plan that scanned the whole table).
@Suite(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
struct PlannerStatisticsTests {
    @Test func aTableThatOutgrowsItsStatisticsIsAnalyzed() async throws {
        let dataDirectory = DataDirectories.temporary()
        let service = try await ServiceProcess.start(dataDirectory: dataDirectory)
        defer { service.stopIfRunning() }
        let database = TestDatabase(dataDirectory: dataDirectory)
        try await service.api.createSession("growing")
        let analyzed = { (table: String) in
            try await database.rows(
                "SELECT analyze_count, CAST(c.reltuples AS bigint) FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid "
                    + "WHERE s.schemaname = current_schema() AND s.relname = '\(table)'"
            )[0]
        }
        #expect(try await analyzed("tasks") == [0, -1], "a new table has never been analyzed")

        // act: 200 tasks, which nothing runs
        let items = (1...200).map { #"{"kind": "download", "url": "http://127.0.0.1:9/\#($0)", "start": false}"# }
        #expect(
            try await service.api.send(.POST, "/v1/sessions/growing/tasks", json: #"{"tasks": [\#(items.joined(separator: ","))]}"#).status
                == 201
        )

        // verify: analyzed by the service (autovacuum's analyses are counted apart), with the rows it has now
        try await waitUntil(timeout: .seconds(60)) { try await analyzed("tasks")[0] >= 1 }
        #expect(try await analyzed("tasks")[1] == 200)
    }
}
