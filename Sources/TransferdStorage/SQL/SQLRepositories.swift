import TransferdDomain

/// The repositories of one transaction, over its connection, whichever database that is.
struct SQLRepositories: Repositories {
    let db: any SQLConnection
    let commitActions = CommitActions()
    /// Whether the transaction appended events: on PostgreSQL, it then has a commit position (`TenantEventCursor`),
    /// which its first append takes (``CommitNumbering``), or the commit, when a savepoint undid that append.
    let eventsAppended = EventsAppended()
    /// What seals the values that may be credentials.
    let vault: CredentialVault
    /// On PostgreSQL, the commit position and notification the first append of events takes.
    let numbering: CommitNumbering?
    private let trace: TraceHolder
    /// How many `isolated` bodies are running, one inside the other.
    private let savepoints = Counter()

    /// The repositories of a transaction over `db`, for work that serves the request with `traceparent`.
    init(db: any SQLConnection, vault: CredentialVault, traceparent: String? = nil, numbering: CommitNumbering? = nil) {
        self.db = db
        self.vault = vault
        self.numbering = numbering
        trace = TraceHolder(traceparent)
    }

    var traceparent: String? { trace.value }

    func traced<T>(_ traceparent: String?, _ body: () async throws -> T) async rethrows -> T {
        let outer = trace.value
        trace.value = traceparent
        defer { trace.value = outer }
        return try await body()
    }

    var sessions: any SessionRepository { SQLSessionRepository(db: db, vault: vault) }
    var tasks: any TaskRepository { SQLTaskRepository(db: db, vault: vault, numbering: numbering, commitActions: commitActions) }
    var queue: any TaskQueueRepository { SQLTaskQueueRepository(db: db, vault: vault) }
    var progress: any TaskProgressRepository { SQLTaskProgressRepository(db: db) }
    var events: any EventRepository {
        SQLEventRepository(db: db, vault: vault, eventsAppended: eventsAppended, numbering: numbering, commitActions: commitActions)
    }
    var webhooks: any WebhookRepository { SQLWebhookRepository(db: db, vault: vault) }
    var endpoints: any WebhookEndpointRepository { SQLWebhookEndpointRepository(db: db) }
    var notices: any EndpointNoticeRepository { SQLEndpointNoticeRepository(db: db) }
    var deliveries: any DeliveryRepository { SQLDeliveryRepository(db: db, vault: vault) }
    var stagedFiles: any StagedFileRepository { SQLStagedFileRepository(db: db) }
    var backgroundTasks: any BackgroundTaskRepository { SQLBackgroundTaskRepository(db: db) }
    var apiKeys: any APIKeyRepository { SQLAPIKeyRepository(db: db) }
    var tenants: any TenantRepository { SQLTenantRepository(db: db, vault: vault) }
    var idempotencyKeys: any IdempotencyRepository { SQLIdempotencyRepository(db: db) }
    var dashboardSessions: any DashboardSessionRepository { SQLDashboardSessionRepository(db: db) }
    var serviceKeys: any ServiceKeyRepository { SQLServiceKeyRepository(db: db, vault: vault) }
    var objectStorages: any ObjectStorageRepository { SQLObjectStorageRepository(db: db, vault: vault) }
    var fetchSchedules: any FetchScheduleRepository { SQLFetchScheduleRepository(db: db, vault: vault) }
    var history: any HistoryRepository { SQLHistoryRepository(db: db, vault: vault) }

    func isolated<T>(_ body: () async throws -> T) async throws -> T {
        let (actions, signals) = (commitActions.actions.count, commitActions.signals.count)
        let (undos, numbered) = (commitActions.undos.count, numbering?.state)
        savepoints.value += 1
        defer { savepoints.value -= 1 }
        do {
            return try await db.savepoint(depth: savepoints.value - 1, body)
        } catch {
            commitActions.actions.removeSubrange(actions...)
            commitActions.signals.removeSubrange(signals...)
            commitActions.undo(from: undos)
            if let numbered { numbering?.restore(numbered) }
            throw error
        }
    }

    func afterCommit(_ action: @escaping @Sendable () -> Void) {
        commitActions.actions.append(action)
    }

    func ifRolledBack(_ action: @escaping @Sendable () -> Void) {
        commitActions.undos.append(action)
    }

    func announce(_ signal: Signal) {
        commitActions.signals.append(signal)
    }
}

/// The trace of the work a transaction runs now; a transaction is one task's, which runs one part at a time.
final class TraceHolder {
    var value: String?

    init(_ value: String?) {
        self.value = value
    }
}

/// A count a transaction keeps while it runs.
final class Counter {
    var value = 0
}

/// What runs just before a write transaction commits (`preparations`, one per key), once it has committed
/// (`actions`, then the `signals` it announced), or if it rolls back (`undos`), gathered while it runs; the store
/// runs them.
/// Whether a transaction appended events (kept even when the part that appended them was undone: a commit
/// position without events is skipped by the readers).
final class EventsAppended {
    var value = false
}

final class CommitActions {
    var actions: [@Sendable () -> Void] = []
    var signals: [Signal] = []
    var undos: [@Sendable () -> Void] = []

    /// Runs the undos registered from the `index`th on, the latest first, and forgets them.
    func undo(from index: Int = 0) {
        for undo in undos[index...].reversed() { undo() }
        undos.removeSubrange(index...)
    }

    /// What follows the commit, as gathered so far: the actions, and each signal once (`.capacity` not beside
    /// `.work`, which wakes the same loops and claims at once).
    var aftermath: Aftermath {
        var signals = Set(signals)
        if signals.contains(.work) { signals.remove(.capacity) }
        return Aftermath(actions: actions, signals: signals)
    }

    /// What follows a commit: its actions run, then its signals reach this instance's subscribers.
    struct Aftermath: Sendable {
        let actions: [@Sendable () -> Void]
        let signals: Set<Signal>

        var isEmpty: Bool { actions.isEmpty && signals.isEmpty }

        func run(signalling bus: SignalBus) {
            for action in actions { action() }
            if !signals.isEmpty { bus.deliver(signals) }
        }
    }
}
