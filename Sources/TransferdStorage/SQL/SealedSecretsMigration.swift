import Foundation
import TransferdDomain

/// The part of the `sealed_secrets` migration written in Swift, since it needs the credentials key: it seals in place
/// what earlier versions stored in plain text (sessions' configurations, tasks' original requests, webhooks' URLs and
/// secrets, the service keys) and takes the password out of tasks' current URLs. It also stores a check value, by
/// which every later opening proves that it was given the key that sealed the database.
enum SealedSecretsMigration {
    /// The migration it follows, by its name without the number (SQLite's and PostgreSQL's are numbered apart).
    static let name = "sealed_secrets"

    /// Whether the migration called `migration` (`0020_sealed_secrets`) is this one.
    static func follows(_ migration: String) -> Bool {
        migration.drop { $0 != "_" }.dropFirst() == name
    }

    static func run(_ db: any SQLConnection, _ vault: CredentialVault) async throws {
        try await seal(db, table: "sessions", columns: ["configuration"], vault)
        try await seal(db, table: "tasks", columns: ["original_request"], vault)
        try await seal(db, table: "webhooks", key: "session_id", columns: ["url", "secret", "previous_secret"], vault)
        for (id, url) in try await db.fetchAll(
            "SELECT id, current_url FROM tasks WHERE current_url IS NOT NULL",
            [],
            { ($0[0] as Int64, $0[1] as String) }
        )
        where Redaction.url(url) != url {
            try await db.execute("UPDATE tasks SET current_url = ? WHERE id = ?", [Redaction.url(url), id])
        }
        for (name, value) in try await db.fetchAll("SELECT name, value FROM service_keys", [], { ($0[0] as String, $0[1] as Data) }) {
            try await db.execute("UPDATE service_keys SET value = ? WHERE name = ?", [try vault.seal(value), name])
        }
        try await db.execute("INSERT INTO service_keys (name, value) VALUES (?, ?)", [checkName, try vault.seal(checkValue)])
    }

    /// Whether the Swift part has run: the check value it stores is there.
    static func hasRun(_ db: any SQLConnection) async throws -> Bool {
        try await db.value("SELECT 1 FROM service_keys WHERE name = ?", [checkName]) as Int64? != nil
    }

    /// Refuses a key that cannot open what the migration sealed: instances sharing a database must share the key.
    static func verify(_ db: any SQLConnection, _ vault: CredentialVault) async throws {
        guard let sealed: Data = try await db.value("SELECT value FROM service_keys WHERE name = ?", [checkName]) else {
            throw StoreError.corruptValue("service_keys holds no \(checkName): the \(name) migration has not run")
        }
        guard (try? vault.open(sealed)) == checkValue else {
            throw StoreError.misconfigured(
                "the credentials key is not the one this database's secrets were sealed with: give every instance the same "
                    + "TRANSFERD_CREDENTIALS_KEY (or credentials.key)"
            )
        }
    }

    private static let checkName = "credentials_check"
    private static let checkValue = Data("transferd credentials key".utf8)

    /// Seals the text `columns` of every row of `table` in place.
    private static func seal(
        _ db: any SQLConnection,
        table: String,
        key: String = "id",
        columns: [String],
        _ vault: CredentialVault
    ) async throws {
        let rows = try await db.fetchAll("SELECT \(key), \(columns.joined(separator: ", ")) FROM \(table)", []) { row in
            (row[0] as Int64, columns.indices.map { row[$0 + 1] as String? })
        }
        let assignments = columns.map { "\($0) = ?" }.joined(separator: ", ")
        for (id, values) in rows {
            let sealed: SQLArguments = try values.map { value in try value.map { try vault.seal(text: $0) } }
            try await db.execute("UPDATE \(table) SET \(assignments) WHERE \(key) = ?", sealed + [id])
        }
    }
}
