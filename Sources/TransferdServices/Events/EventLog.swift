import Foundation
import TransferdDomain

/// The durable, per-session, gap-free sequence of events: appended inside the transaction that causes them
/// (together with their webhook deliveries), read by polling or long-polling.
package struct EventLog: Sendable {
    let store: any Store
    /// Bumped by `Signal.events` (from any instance) for the session's waiting readers.
    package let signal: EventSignal
    let clock: any WallClock
    /// Counts every committed event, and what it tells of tasks and bytes.
    let metrics: ServiceMetrics
    /// Whether other instances append to the log too (``Instance/sharesDatabase``): their notifications can be lost.
    let sharedDatabase: Bool

    package init(store: any Store, signal: EventSignal, clock: any WallClock, metrics: ServiceMetrics, sharedDatabase: Bool) {
        self.store = store
        self.signal = signal
        self.clock = clock
        self.metrics = metrics
        self.sharedDatabase = sharedDatabase
    }

    /// An event to append: its session, payload and task.
    struct Entry: Sendable {
        let sessionID: Int64
        let payload: EventPayload
        let taskIdentifier: Int64?
        let kind: TransferTask.Kind?

        init(sessionID: Int64, _ payload: EventPayload, taskIdentifier: Int64? = nil, kind: TransferTask.Kind? = nil) {
            (self.sessionID, self.payload, self.taskIdentifier, self.kind) = (sessionID, payload, taskIdentifier, kind)
        }

        /// An event about `task`.
        init(_ payload: EventPayload, for task: TransferTask) {
            self.init(sessionID: task.sessionId, payload, taskIdentifier: task.taskIdentifier, kind: task.kind)
        }
    }

    /// Appends events, in order, to their sessions' logs in the caller's transaction (together: one statement a
    /// session on PostgreSQL); readers and the dispatchers (of every instance) wake after the commit, which the
    /// metrics count.
    @discardableResult
    func append(_ repositories: any Repositories, _ entries: [Entry]) async throws -> [Event] {
        let (now, traceparent) = (clock.now, repositories.traceparent)
        let appended = try await repositories.events.append(
            entries.map { entry in
                Event(
                    sessionId: entry.sessionID,
                    sequence: 0,
                    taskIdentifier: entry.taskIdentifier,
                    payload: entry.payload,
                    createdAt: now,
                    traceparent: traceparent
                )
            }
        )
        for sessionID in Set(entries.map(\.sessionID)) { repositories.announce(.events(sessionID: sessionID)) }
        if appended.contains(where: \.queuedDelivery) { repositories.announce(.outbox) }
        let (metrics, written) = (metrics, zip(appended, entries).map { ($0.event, $1.kind) })
        repositories.afterCommit { for (event, kind) in written { metrics.written(event, kind: kind) } }
        return appended.map(\.event)
    }

    /// Counts events about `tasks` that a statement of their own committed (``TaskCreation``), as `append(_:_:)`
    /// counts those it appends.
    package func count(_ events: [Event], of tasks: [TransferTask]) {
        let kinds = Dictionary(tasks.map { ($0.taskIdentifier, $0.kind) }, uniquingKeysWith: { first, _ in first })
        for event in events { metrics.written(event, kind: event.taskIdentifier.flatMap { kinds[$0] }) }
    }

    /// Appends one event to the session's log in the caller's transaction, as `append(_:_:)` does.
    @discardableResult
    package func append(
        _ repositories: any Repositories,
        sessionID: Int64,
        _ payload: EventPayload
    ) async throws -> Event {
        try await append(repositories, [Entry(sessionID: sessionID, payload)])[0]
    }

    /// Appends an event about `task` to its session's log, in the caller's transaction.
    @discardableResult
    package func append(
        _ repositories: any Repositories,
        _ payload: EventPayload,
        for task: TransferTask
    ) async throws -> Event {
        try await append(repositories, [Entry(payload, for: task)])[0]
    }

    /// Events of `session` after `sequence` (only one task's when `taskIdentifier` is given), oldest first; waits
    /// up to `wait` for the first one if there is none yet. Refuses (``TrimmedHistory``) a read from before where the
    /// log was trimmed, as the session read says, or as a gap in the events found shows: the log is gap-free from
    /// where it begins, and a trim between the two shows as one (a trim that left nothing after `sequence` is
    /// refused on the next read, whose session is read after it).
    package func events(
        of session: Session,
        after sequence: Int64,
        taskIdentifier: Int64? = nil,
        limit: Int,
        wait: Duration
    ) async throws -> [Event] {
        let (sessionID, deadline) = (session.rowID, ContinuousClock.now + wait)
        try Self.refuse(after: sequence, of: session)
        while true {
            let seen = signal.version(sessionID: sessionID)
            let events = try await store.lookup {
                try await $0.events.list(sessionID: sessionID, after: sequence, taskIdentifier: taskIdentifier, limit: limit)
            }
            try Self.refuseGap(after: sequence, found: events, taskIdentifier: taskIdentifier)
            let remaining = deadline - ContinuousClock.now
            if !events.isEmpty || remaining <= .zero || Task.isCancelled {
                return events
            }
            await signal.wait(sessionID: sessionID, seen: seen, timeout: remaining)
        }
    }

    /// ``events(of:after:taskIdentifier:limit:wait:)`` of the tenant's session named `identifier`, which the first
    /// look reads with the events, in one statement (a 404 when there is no such session).
    package func events(
        ofSessionNamed identifier: String,
        tenantID: Int64,
        after sequence: Int64,
        taskIdentifier: Int64? = nil,
        limit: Int,
        wait: Duration
    ) async throws -> [Event] {
        let deadline = ContinuousClock.now + wait
        try ClientIdentifier.validate(identifier, field: "identifier")
        let read = try await store.lookup { repositories in
            try await repositories.events.list(
                sessionIdentifier: identifier,
                tenantID: tenantID,
                after: sequence,
                taskIdentifier: taskIdentifier,
                limit: limit
            )
        }
        guard let (session, events) = read else { throw SessionService.notFound(identifier) }
        try Self.refuse(after: sequence, of: session)
        try Self.refuseGap(after: sequence, found: events, taskIdentifier: taskIdentifier)
        let remaining = deadline - ContinuousClock.now
        guard events.isEmpty, remaining > .zero, !Task.isCancelled else { return events }
        return try await self.events(of: session, after: sequence, taskIdentifier: taskIdentifier, limit: limit, wait: remaining)
    }

    /// Refuses (``TrimmedHistory``) a read of `session`'s events after `sequence` when the session says events after
    /// it were trimmed.
    private static func refuse(after sequence: Int64, of session: Session) throws {
        guard sequence >= session.eventsTrimmedThrough else {
            throw DomainError.historyTrimmed(.session(earliestSequence: session.earliestSequence))
        }
    }

    /// Refuses (``TrimmedHistory``) `found`, a session's events after `sequence`, when a gap before the first one
    /// shows a trim after the session was read.
    private static func refuseGap(after sequence: Int64, found events: [Event], taskIdentifier: Int64?) throws {
        if taskIdentifier == nil, let first = events.first, first.sequence > sequence + 1 {
            throw DomainError.historyTrimmed(.session(earliestSequence: first.sequence))
        }
    }

    /// Refuses (``TrimmedHistory``) a read of the tenant's events after `cursor` when events after it were trimmed.
    package func refuseTrimmed(tenantID: Int64, after cursor: TenantEventCursor) async throws {
        try Self.refuse(cursor, trimmedThrough: try await store.lookup { try await $0.tenants.eventsTrimmedThrough(id: tenantID) })
    }

    private static func refuse(_ cursor: TenantEventCursor, trimmedThrough trimmed: TenantEventCursor) throws {
        if !cursor.namesTransaction, cursor < trimmed { throw DomainError.historyTrimmed(.tenant(trimmedThrough: trimmed)) }
    }

    /// A cursor from which a reader of the tenant's events sees what is written from now on.
    package func presentCursor() async throws -> TenantEventCursor {
        try await store.lookup { try await $0.events.presentCursor() }
    }

    /// Events of every session of the tenant after `cursor`, in `TenantEventCursor`'s order; waits up to `wait` for
    /// the first one if there is none yet. On a shared database an idle reader also looks again every second, not
    /// only when woken: another instance's notification is lost while the connection that listens reconnects.
    ///
    /// A cursor from before where the tenant's events were trimmed is refused (``TrimmedHistory``): the trimmed
    /// position is read with the events, after them, so that a trim between the two is seen.
    package func events(tenantID: Int64, after cursor: TenantEventCursor, limit: Int, wait: Duration) async throws -> [TenantEvent] {
        let deadline = ContinuousClock.now + wait
        let recheck: Duration = sharedDatabase ? .seconds(1) : wait
        while true {
            let seen = signal.version(sessionID: EventSignal.everySession)
            let (events, trimmed) = try await store.lookup { repositories in
                (
                    try await repositories.events.list(tenantID: tenantID, after: cursor, limit: limit),
                    try await repositories.tenants.eventsTrimmedThrough(id: tenantID)
                )
            }
            try Self.refuse(cursor, trimmedThrough: trimmed)
            let remaining = deadline - ContinuousClock.now
            if !events.isEmpty || remaining <= .zero || Task.isCancelled {
                return events
            }
            await signal.wait(sessionID: EventSignal.everySession, seen: seen, timeout: min(remaining, recheck))
        }
    }
}
