import Foundation
import TransferdDomain

/// Creates, reads and invalidates sessions.
package struct SessionService: Sendable {
    let store: any Store
    let webhooks: WebhookService
    let transitions: TaskTransitions
    let quotas: TenantQuotas
    let clock: any WallClock
    private let known = KnownSessions()

    package init(
        store: any Store,
        webhooks: WebhookService,
        transitions: TaskTransitions,
        quotas: TenantQuotas,
        clock: any WallClock
    ) {
        self.store = store
        self.webhooks = webhooks
        self.transitions = transitions
        self.quotas = quotas
        self.clock = clock
    }

    /// What creating a session produced: the session, whether it is new, and a generated webhook secret to show once.
    package struct Creation: Sendable {
        package var session: Session
        package var created: Bool
        package var generatedSecret: WebhookSecret?
    }

    /// Returns the live session with this identifier, or creates it (with its webhook): never two live sessions
    /// with one identifier. A reconnect keeps the session's original configuration, like re-creating a background
    /// NSURLSession.
    package func createOrReconnect(
        identifier: String,
        tenantID: Int64,
        configuration: SessionConfiguration,
        webhook: WebhookSettings?
    ) async throws -> Creation {
        try await store.write { repositories in
            if let live = try await repositories.sessions.live(identifier: identifier, tenantID: tenantID) {
                return Creation(session: live, created: false)
            }
            try await quotas.admit([.sessions: 1], tenant: tenantID, repositories)
            let session = try await repositories.sessions.insert(
                Session(identifier: identifier, tenantId: tenantID, configuration: configuration, createdAt: clock.now)
            )
            let secret =
                if let webhook { try await webhooks.set(webhook, sessionID: session.rowID, repositories).generated } else {
                    WebhookSecret?.none
                }
            return Creation(session: session, created: true, generatedSecret: secret)
        }
    }

    /// The session an identifier names among the tenant's: the live one, else the most recently invalidated one.
    /// Another tenant's sessions are as absent as sessions that never were.
    package func session(identifier: String, tenantID: Int64) async throws -> Session {
        try ClientIdentifier.validate(identifier, field: "identifier")
        let read = try await store.lookup { try await $0.sessions.latest(identifier: identifier, tenantID: tenantID) }
        let session = try found(read, identifier)
        known.remember(session, at: clock.now)
        return session
    }

    /// ``session(identifier:tenantID:)`` with its ``Session/Details``, read together.
    package func sessionWithDetails(identifier: String, tenantID: Int64) async throws -> (session: Session, details: Session.Details) {
        try ClientIdentifier.validate(identifier, field: "identifier")
        let read = try await store.lookup { try await $0.sessions.latestWithDetails(identifier: identifier, tenantID: tenantID) }
        return (try found(read?.session, identifier), read?.details ?? .init())
    }

    /// ``session(identifier:tenantID:)`` with its task `taskIdentifier`, read together.
    package func session(
        identifier: String,
        tenantID: Int64,
        task taskIdentifier: Int64
    ) async throws -> (session: Session, task: TransferTask) {
        try ClientIdentifier.validate(identifier, field: "identifier")
        let read = try await store.lookup { repositories in
            try await repositories.sessions.latest(identifier: identifier, tenantID: tenantID, task: taskIdentifier)
        }
        let session = try found(read?.session, identifier)
        guard let task = read?.task else { throw TaskService.notFound(taskIdentifier, in: session) }
        return (session, task)
    }

    /// `session`, or a 404 naming `identifier` when there is none.
    private func found(_ session: Session?, _ identifier: String) throws -> Session {
        guard let session else { throw Self.notFound(identifier) }
        return session
    }

    /// The 404 of an identifier that names none of the tenant's sessions.
    static func notFound(_ identifier: String) -> DomainError {
        .notFound("No session has the identifier `\(identifier)`.")
    }

    /// The session an identifier names, as ``session(identifier:tenantID:)`` found it a few seconds ago at most
    /// (``KnownSessions``), or as it finds it now: for a route that needs only the session's row id and
    /// configuration, and whose write checks that the session still takes it.
    package func knownSession(identifier: String, tenantID: Int64) async throws -> Session {
        if let session = known.session(identifier: identifier, tenantID: tenantID, at: clock.now) { return session }
        return try await session(identifier: identifier, tenantID: tenantID)
    }

    /// Sessions in creation order, after the row id `cursor`: the tenant's, or every tenant's when `tenantID` is nil.
    package func list(after cursor: Int64, limit: Int, tenantID: Int64?) async throws -> [Session] {
        try await store.lookup { try await $0.sessions.list(after: cursor, limit: limit, tenantID: tenantID) }
    }

    /// What the sessions' representations need besides their rows.
    package func details(sessionIDs: [Int64]) async throws -> [Int64: Session.Details] {
        try await store.lookup { try await $0.sessions.details(sessionIDs: sessionIDs) }
    }

    /// finishTasksAndInvalidate (`cancelTasks: false`) or invalidateAndCancel (`cancelTasks: true`).
    ///
    /// The session stops accepting tasks at once; it becomes `invalidated` when its last task has completed.
    /// Applies `change` to a live session; turning launch events on wakes the dispatcher for the events held back,
    /// and making it no longer discretionary wakes the scheduler.
    package func update(sessionID: Int64, _ change: SessionChange) async throws -> Session {
        try await store.write { repositories in
            guard var session = try await repositories.sessions.find(id: sessionID) else {
                throw DomainError.notFound("The session does not exist.")
            }
            guard session.state == .active else {
                throw DomainError.conflict("Session \(session.identifier) is \(session.state.rawValue); only an active session changes.")
            }
            if let sends = change.sessionSendsLaunchEvents { session.configuration.sessionSendsLaunchEvents = sends }
            if let discretionary = change.discretionary { session.configuration.discretionary = discretionary }
            try await repositories.sessions.updateConfiguration(of: session)
            if change.sessionSendsLaunchEvents == true { repositories.announce(.outbox) }
            if change.discretionary == false { repositories.announce(.work) }
            return session
        }
    }

    package func invalidate(sessionID: Int64, cancelTasks: Bool) async throws -> Session {
        try await store.write { repositories in
            guard let session = try await repositories.sessions.find(id: sessionID) else {
                throw DomainError.notFound("The session does not exist.")
            }
            do {
                try await invalidate(session, cancelTasks: cancelTasks, repositories)
            } catch is SessionStateMachine.IllegalTransition {
                throw DomainError.conflict("Session \(session.identifier) is already invalidated.")
            }
            return try await repositories.sessions.find(id: sessionID) ?? session
        }
    }

    private func invalidate(_ session: Session, cancelTasks: Bool, _ repositories: any Repositories) async throws {
        var (session, machine) = (session, SessionStateMachine(state: session.state, cancelsTasks: session.cancelOnInvalidate))
        _ = try machine.handle(.invalidate(cancelTasks: cancelTasks))
        (session.state, session.cancelOnInvalidate) = (machine.state, machine.cancelsTasks)
        try await repositories.sessions.updateState(of: session)
        if cancelTasks {
            try await transitions.cancel(try repositories.tasks.unfinished(sessionID: session.rowID), .cancel(.init()), repositories)
        }
        try await transitions.settleSession(session.rowID, taskBecameIdle: false, repositories)
    }

    /// Deletes a session: from then on the API answers 404 for it, and its identifier may name a new session. In one
    /// transaction its webhook goes (the deliveries not yet sent fail; one under way ends as it ends), its fetch
    /// schedules go, and a session not yet invalidated is invalidated with its tasks cancelled; then the history's
    /// next pass, on whichever instance, removes its tasks with their content, its events, its deliveries and
    /// background tasks, and its row (``HistoryPruner``), resuming after a crash where it was.
    package func delete(sessionID: Int64) async throws {
        let now = clock.now
        try await store.write { repositories in
            guard let session = try await repositories.sessions.find(id: sessionID), session.deletedAt == nil else { return }
            if try await repositories.webhooks.delete(sessionID: session.rowID) {
                let abandoned = DeliveryStateMachine.abandoned(reason: "The session was deleted.", at: now)
                try await repositories.deliveries.apply(abandoned, sessionID: session.rowID)
            }
            for schedule in try await repositories.fetchSchedules.list(sessionID: session.rowID) {
                try await repositories.fetchSchedules.delete(id: schedule.rowID)
            }
            if session.state != .invalidated { try await invalidate(session, cancelTasks: true, repositories) }
            try await repositories.sessions.markDeleted(id: session.rowID, at: now)
            repositories.announce(.history)
        }
    }
}
