/// Where transferd keeps its state: transactions over the repositories of every aggregate.
///
/// A transaction's body touches nothing but the repositories it is given, so that it can be run again from the
/// start; it awaits its statements (a round trip each on PostgreSQL, a call on SQLite) and nothing else. Changes and the
/// events they cause are written in one transaction; whatever must follow the commit is registered with
/// `afterCommit`, and what other loops (of this instance or another) must learn of it is announced as a `Signal`.
package protocol Store: Sendable {
    /// Runs `body` in a read-only transaction that sees one consistent snapshot.
    func read<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T
    /// Runs `body`, a read of one statement, which sees that statement's own snapshot: on PostgreSQL it is sent without
    /// a transaction around it (one round trip, where a transaction adds two). A body that sends a second statement
    /// is run again as a ``read(_:)``, whatever it made of the refusal. Its statement is counted with the transactions
    /// of `kind` (a scheduler's look at the queue with its claims).
    func lookup<T: Sendable>(
        counted kind: StoreStatistics.Transaction,
        _ body: @escaping @Sendable (any Repositories) async throws -> T
    ) async throws -> T
    /// Runs `body` in a write transaction: all of it is committed, or none of it.
    func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T
    /// Runs `body`, a write of one statement, without a transaction: the statement commits by itself (on
    /// PostgreSQL, one round trip where a transaction adds two), and runs again when the database aborted it (a
    /// deadlock). A body that asks for a second statement (its write comes last, after what it read) is refused before
    /// it is sent: what it registered is undone, and it answers nil, as does a store whose writes take turns of its one writer (SQLite), which runs nothing.
    func alone<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T?
    /// Runs `body` in a write transaction that claims work: across every instance sharing the database one such
    /// transaction runs at a time, it sees what the others committed before it, and rows another transaction is
    /// changing are passed over (`FOR UPDATE SKIP LOCKED`) rather than waited for. Its body writes nothing but the
    /// claims.
    func claim<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T
    /// Runs `body` in a short write transaction that must not wait behind the store's other writes: a lease renewal,
    /// whose lateness stops the work it holds. It sees what others committed, not a snapshot. On a store with one
    /// writer of its own (SQLite) it is a write like any other.
    func renew<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T
    /// Whether the store answers a trivial query (readiness).
    func isReachable() async -> Bool
    /// What a shared store counts of its statements and retries; nil for one in process (SQLite), whose statements
    /// are calls, not round trips.
    var statistics: StoreStatistics? { get }
}

extension Store {
    /// A lookup counted with the reads.
    package func lookup<T: Sendable>(_ body: @escaping @Sendable (any Repositories) async throws -> T) async throws -> T {
        try await lookup(counted: .read, body)
    }
}

/// A transaction that must run again from the start: another one conflicted with it (on PostgreSQL, a deadlock, or a
/// key another transaction inserted since this one looked). A body lets it propagate, and never answers a caller
/// with it; the store runs it again.
package protocol TransactionConflict: Error {}

/// The repositories of one transaction.
package protocol Repositories {
    var sessions: any SessionRepository { get }
    var tasks: any TaskRepository { get }
    var queue: any TaskQueueRepository { get }
    var progress: any TaskProgressRepository { get }
    var events: any EventRepository { get }
    var webhooks: any WebhookRepository { get }
    var endpoints: any WebhookEndpointRepository { get }
    var notices: any EndpointNoticeRepository { get }
    var deliveries: any DeliveryRepository { get }
    var stagedFiles: any StagedFileRepository { get }
    var backgroundTasks: any BackgroundTaskRepository { get }
    var apiKeys: any APIKeyRepository { get }
    var tenants: any TenantRepository { get }
    var idempotencyKeys: any IdempotencyRepository { get }
    var serviceKeys: any ServiceKeyRepository { get }
    var dashboardSessions: any DashboardSessionRepository { get }
    var objectStorages: any ObjectStorageRepository { get }
    var fetchSchedules: any FetchScheduleRepository { get }
    var history: any HistoryRepository { get }

    /// Runs `body` so that, if it throws, what it wrote (and the actions it registered) is undone while the
    /// transaction goes on (a savepoint); its error is rethrown. Many callers' work can share one transaction so.
    func isolated<T>(_ body: () async throws -> T) async throws -> T
    /// The `traceparent` of the request the work in progress serves (`Trace.parent` where it was submitted).
    var traceparent: String? { get }
    /// Runs `body` as work that serves the request with `traceparent` (work of many callers sharing a transaction).
    func traced<T>(_ traceparent: String?, _ body: () async throws -> T) async rethrows -> T
    /// Runs `action` once the transaction has committed; never when it rolls back.
    func afterCommit(_ action: @escaping @Sendable () -> Void)
    /// Runs `action` when what was written since is undone: the transaction rolls back (a body that throws, a commit
    /// that fails, a conflict that makes it run again), or the `isolated` body it was registered in throws. It undoes
    /// a step outside the database (a file's new name) that the write took.
    func ifRolledBack(_ action: @escaping @Sendable () -> Void)
    /// Delivers `signal` once the transaction has committed, to the subscribers of this instance and of every other
    /// sharing the database.
    func announce(_ signal: Signal)
}
