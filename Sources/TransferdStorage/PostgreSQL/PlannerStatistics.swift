import Foundation
import Logging
import PostgresNIO

/// Keeps the planner's statistics of the store's tables fresh while they grow from empty, so that the plans of the
/// prepared statements follow them.
///
/// A prepared statement's plan is made on its connection once, early, and kept until its tables' statistics
/// change: made while `tasks` held a few rows, the end's read of one task by its key scanned every row of the table
/// (1.2 ms at 2,000 rows, against 0.16 ms by its index). Autovacuum analyzes a table only on its next round, a
/// minute apart by default, and later still on a busy cluster. So every `interval`, each table that has more than
/// doubled since it was last analyzed (and has at least `smallest` rows, and fewer than `largest`, where
/// autovacuum's share of 10 % is soon enough) is analyzed, which makes every connection plan its statements again.
/// A table another instance is analyzing meanwhile is left to it (`SKIP_LOCKED`).
struct PlannerStatistics: Sendable {
    var interval: Duration = .seconds(2)
    var smallest = 64
    var largest = 1_000_000

    /// The tables of the current schema that have grown past their statistics.
    var outgrown: String {
        """
        SELECT s.relname FROM pg_stat_user_tables AS s JOIN pg_class AS c ON c.oid = s.relid
        WHERE s.schemaname = current_schema() AND s.n_live_tup BETWEEN \(smallest) AND \(largest)
          AND s.n_live_tup > 2 * greatest(c.reltuples, 0)
        """
    }

    /// Analyzes the tables that have outgrown their statistics, and answers their names.
    func refresh(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: outgrown), logger: logger).get().rows
        let tables = try rows.map { try $0.decode(String.self) }
        guard !tables.isEmpty else { return [] }
        let names = tables.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }.joined(separator: ", ")
        _ = try await connection.query(PostgresQuery(unsafeSQL: "ANALYZE (SKIP_LOCKED) \(names)"), logger: logger).get()
        return tables
    }
}
