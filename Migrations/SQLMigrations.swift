import Foundation

/// The numbered SQL migrations in `Migrations/`, shipped as resources of this target.
public enum SQLMigrations {
    /// One migration: its file name without extension (`0001_initial`) and its SQL text.
    public struct Migration: Sendable {
        public let name: String
        public let sql: String
    }

    /// Every migration, in the order it must be applied (by file name).
    public static func all() throws -> [Migration] {
        guard let directory = Bundle.module.resourceURL else { return [] }
        return try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
            .map { url in
                Migration(name: url.deletingPathExtension().lastPathComponent, sql: try String(contentsOf: url, encoding: .utf8))
            }
    }
}
