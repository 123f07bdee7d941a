import PostgresNIO
import Testing
import TransferdStorage
import TransferdTestSupport

/// `--database-url`: what a PostgreSQL URL selects, and the precise refusal of one that does not say.
@Suite struct PostgresLocationTests {
    @Test func aURLNamesTheServerTheDatabaseAndTheSchema() throws {
        let location = try PostgresLocation(url: "postgres://app:s%40cret@db.internal:6543/transfers?schema=tenant_a&sslmode=disable")
        #expect(location.configuration.host == "db.internal")
        #expect(location.configuration.port == 6543)
        #expect(location.configuration.username == "app")
        #expect(location.configuration.password == "s@cret")
        #expect(location.configuration.database == "transfers")
        #expect(
            location.configuration.options.additionalStartupParameters.map { "\($0.0)=\($0.1)" } == [
                "jit=off", "plan_cache_mode=force_generic_plan", "search_path=tenant_a",
            ]
        )
    }

    @Test(arguments: [
        ("mysql://db/x", "is not a postgres://"),
        ("postgres://user:hunter2@/x", "postgres://user:***@/x"),
        ("postgres://db/x?sslmode=verify-full", "sslmode `verify-full` is not one of disable, prefer, require"),
        ("postgres://db/x?schema=a;drop", "schema `a;drop` may hold only letters, digits and underscores"),
    ])
    func aURLThatDoesNotSayIsRefusedPrecisely(url: String, message: String) throws {
        let error = #expect(throws: StoreError.self) { try PostgresLocation(url: url) }
        let description = error.map(String.init(describing:)) ?? ""
        #expect(description.contains(message), "\(description)")
        #expect(!description.contains("hunter2"), "a password is never repeated")
    }
}
