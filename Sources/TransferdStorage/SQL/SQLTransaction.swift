import TransferdDomain

/// One transaction over a connection, whichever database: begun, its body run over the repositories, committed,
/// then what follows the commit run. On any error it is rolled
/// back and what the body registered to undo is undone.
struct SQLTransaction {
    let db: any SQLConnection
    let vault: CredentialVault
    var traceparent: String? = nil
    /// On PostgreSQL, how a transaction that appends events takes its commit position.
    var notifications: PostgresNotifications? = nil

    /// Runs `body` between the `begin` statements and the commit; `finish` runs just before the commit. The commit's signals go to `bus` (none to a migration's).
    func run<T>(
        begin: [String],
        signalling bus: SignalBus?,
        finish: (SQLRepositories) async throws -> Void = { _ in },
        _ body: (any Repositories) async throws -> T
    ) async throws -> T {
        let repositories = SQLRepositories(
            db: db,
            vault: vault,
            traceparent: traceparent,
            numbering: notifications.map(CommitNumbering.init(notifications:))
        )
        let result: T
        do {
            for statement in begin { try await db.execute(statement, []) }
            result = try await body(repositories)
            try await finish(repositories)
            try await db.execute("COMMIT", [])
        } catch {
            _ = try? await db.execute("ROLLBACK", [])
            repositories.commitActions.undo()
            throw error
        }
        if let bus { repositories.commitActions.aftermath.run(signalling: bus) }
        return result
    }
}
