import Logging
import NIOPosix
import PostgresNIO
import Testing
import TransferdTestSupport

@testable import TransferdStorage

/// A PostgreSQL migration file runs as one statement whatever dollar quotes it holds of its own (the runner wrapped
/// every file in `$sql$` before, and a file holding `$sql$` broke it).
@Suite struct MigrationScriptTests {
    static let script = """
        CREATE FUNCTION quoted() RETURNS TEXT LANGUAGE sql AS $sql$ SELECT 'a $migration$ b' $sql$;
        CREATE FUNCTION plain() RETURNS TEXT LANGUAGE sql AS $$ SELECT quoted() || ' $sql1$' $$;
        """

    @Test func theTagsAreOnesTheTextDoesNotHold() {
        #expect(MigrationScript.tag("sql", avoiding: "CREATE TABLE t (x INT)") == "$sql$")
        #expect(MigrationScript.tag("sql", avoiding: Self.script) == "$sql2$")
        #expect(MigrationScript.tag("migration", avoiding: Self.script) == "$migration1$")
        #expect(MigrationScript.statement(Self.script).hasPrefix("DO $migration1$ BEGIN EXECUTE $sql2$CREATE FUNCTION"))
    }

    @Test(.enabled(if: SuiteDatabase.postgresURL != nil, "needs PostgreSQL (TRANSFERD_TEST_DATABASE_URL)"))
    func aFileWithDollarQuotesOfItsOwnRunsOnPostgreSQL() async throws {
        let location = try PostgresLocation(
            url: try #require(SuiteDatabase.url(forDataDirectory: DataDirectories.temporary()))
        )
        let schema = try #require(location.schema)
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: location.configuration,
            id: 1,
            logger: Logger(label: "test")
        )
        do {
            try await connection.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)", logger: Logger(label: "test"))
            try await connection.query(PostgresQuery(unsafeSQL: MigrationScript.statement(Self.script)), logger: Logger(label: "test"))
            let rows = try await connection.query("SELECT plain()", logger: Logger(label: "test"))
            var answers: [String] = []
            for try await (text) in rows.decode(String.self) { answers.append(text) }
            #expect(answers == ["a $migration$ b $sql1$"])
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}
