import Foundation
import PostgresNIO

/// Where a PostgreSQL database is, from a URL: `postgres://user:password@host:port/database`, with the query
/// parameters `schema` (the schema transferd's tables live in, created when missing; `public` by default) and
/// `sslmode` (`disable`, `prefer`, the default, or `require`).
package struct PostgresLocation: Sendable {
    /// A connection of its own (the one that listens).
    package let configuration: PostgresConnection.Configuration
    /// The pool's connections (their number left to the store).
    package let clientConfiguration: PostgresClient.Configuration
    let schema: String?

    package init(url text: String) throws {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? ""), let host = url.host,
            !host.isEmpty
        else {
            throw StoreError.misconfigured("`\(Self.redacted(text))` is not a postgres://user:password@host:port/database URL")
        }
        let parameters = Dictionary((url.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
        let tls: PostgresConnection.Configuration.TLS
        let clientTLS: PostgresClient.Configuration.TLS
        switch parameters["sslmode"] ?? "prefer" {
        case "disable": (tls, clientTLS) = (.disable, .disable)
        case "prefer":
            (tls, clientTLS) = (.prefer(try .init(configuration: .makeClientConfiguration())), .prefer(.makeClientConfiguration()))
        case "require":
            (tls, clientTLS) = (.require(try .init(configuration: .makeClientConfiguration())), .require(.makeClientConfiguration()))
        case let mode: throw StoreError.misconfigured("sslmode `\(mode)` is not one of disable, prefer, require")
        }
        let database = url.path.hasPrefix("/") ? String(url.path.dropFirst()) : url.path
        var configuration = PostgresConnection.Configuration(
            host: host,
            port: url.port ?? 5432,
            username: url.user ?? "postgres",
            password: url.password,
            database: database.isEmpty ? nil : database,
            tls: tls
        )
        schema = parameters["schema"].flatMap { $0.isEmpty ? nil : $0 }
        configuration.options.additionalStartupParameters = Self.sessionSettings
        if let schema {
            guard schema.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                throw StoreError.misconfigured("schema `\(schema)` may hold only letters, digits and underscores")
            }
            configuration.options.additionalStartupParameters.append(("search_path", schema))
        }
        self.configuration = configuration
        var clientConfiguration = PostgresClient.Configuration(
            host: host,
            port: configuration.port ?? 5432,
            username: configuration.username,
            password: configuration.password,
            database: configuration.database,
            tls: clientTLS
        )
        clientConfiguration.options.additionalStartupParameters = configuration.options.additionalStartupParameters
        self.clientConfiguration = clientConfiguration
    }

    /// Settings of every connection.
    /// - No JIT compilation: transferd's statements read and write a few rows each, and a plan whose cost an
    ///   out-of-date estimate inflates past `jit_above_cost` (a table that grew since it was last analysed) spent
    ///   milliseconds compiling for a query that runs in microseconds.
    /// - A prepared statement's plan is its generic plan, made once per connection and again whenever its tables'
    ///   statistics change (``PlannerStatistics``). Left to choose, PostgreSQL planned the claim's read afresh on
    ///   every execution once its tables had statistics (a custom plan looked cheaper for the values it was given):
    ///   1.4 ms of planning for 0.4 ms of execution.
    private static let sessionSettings = [("jit", "off"), ("plan_cache_mode", "force_generic_plan")]

    /// The URL without its password, for messages and logs.
    private static func redacted(_ text: String) -> String {
        guard var url = URLComponents(string: text), url.password != nil else { return text }
        url.password = "***"
        return url.string ?? text
    }
}
