import Foundation

/// The database the suite runs against: SQLite in each data directory, or a PostgreSQL server as well
/// (`TRANSFERD_TEST_DATABASE_URL`), where every data directory gets a schema of its own.
package enum SuiteDatabase {
    /// The PostgreSQL server the suite runs against as well as SQLite, if any.
    package static let postgresURL = ProcessInfo.processInfo.environment["TRANSFERD_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// The database a store on `dataDirectory` keeps its state in: nil for SQLite in the directory, or, against
    /// PostgreSQL, a schema of its own named after the directory, so that a restart on the same directory finds it.
    package static func url(forDataDirectory dataDirectory: String) -> String? {
        guard let postgresURL else { return nil }
        let name =
            "t_"
            + String(dataDirectory.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
            .suffix(40).lowercased()
        return postgresURL + (postgresURL.contains("?") ? "&" : "?") + "schema=" + name
    }
}
