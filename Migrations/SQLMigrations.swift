import Foundation

/// The numbered SQL migrations, shipped as resources of this target: SQLite's in `Migrations/`, PostgreSQL's in
/// `Migrations/PostgreSQL/`.
public enum SQLMigrations {
    /// One migration: its file name without extension (`0001_initial`) and its SQL text.
    public struct Migration: Sendable {
        public let name: String
        public let sql: String
    }

    /// Every migration of SQLite, in the order it must be applied (by file name).
    public static func sqlite() throws -> [Migration] {
        try migrations(in: Bundle.module.resourceURL)
    }

    /// Every migration of PostgreSQL, in order.
    public static func postgres() throws -> [Migration] {
        try migrations(in: Bundle.module.resourceURL?.appendingPathComponent("PostgreSQL"))
    }

    private static func migrations(in directory: URL?) throws -> [Migration] {
        guard let directory else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { url in
                Migration(name: url.deletingPathExtension().lastPathComponent, sql: try String(contentsOf: url, encoding: .utf8))
            }
    }
}
