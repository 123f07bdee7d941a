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

    package init(store: any Store, signal: EventSignal, clock: any WallClock, metrics: ServiceMetrics) {
        self.store = store
        self.signal = signal
        self.clock = clock
        self.metrics = metrics
    }

    /// Appends one event to the session's log in the caller's transaction; readers and the dispatchers (of every
    /// instance) wake after the commit, which the metrics count.
    @discardableResult
    package func append(
        _ repositories: any Repositories,
        sessionID: Int64,
        type: EventType,
        taskIdentifier: Int64? = nil,
        data: EventData = EventData(),
        kind: TransferTask.Kind? = nil
    ) throws -> Event {
        let (event, queuedDelivery) = try repositories.events.append(
            sessionID: sessionID,
            type: type,
            taskIdentifier: taskIdentifier,
            data: data,
            at: clock.now,
            traceparent: repositories.traceparent
        )
        repositories.announce(.events(sessionID: sessionID))
        if queuedDelivery { repositories.announce(.outbox) }
        let metrics = metrics
        repositories.afterCommit { metrics.written(event, kind: kind) }
        return event
    }

    /// Appends an event about `task` to its session's log, in the caller's transaction.
    @discardableResult
    package func append(
        _ repositories: any Repositories,
        _ type: EventType,
        for task: TransferTask,
        data: EventData = EventData()
    ) throws
        -> Event
    {
        try append(repositories, sessionID: task.sessionId, type: type, taskIdentifier: task.taskIdentifier, data: data, kind: task.kind)
    }

    /// Events of the session after `sequence` (only one task's when `taskIdentifier` is given), oldest first; waits
    /// up to `wait` for the first one if there is none yet.
    package func events(
        sessionID: Int64,
        after sequence: Int64,
        taskIdentifier: Int64? = nil,
        limit: Int,
        wait: Duration
    ) async throws -> [Event] {
        let deadline = ContinuousClock.now + wait
        while true {
            let seen = signal.version(sessionID: sessionID)
            let events = try await store.read {
                try $0.events.list(sessionID: sessionID, after: sequence, taskIdentifier: taskIdentifier, limit: limit)
            }
            let remaining = deadline - ContinuousClock.now
            if !events.isEmpty || remaining <= .zero || Task.isCancelled {
                return events
            }
            await signal.wait(sessionID: sessionID, seen: seen, timeout: remaining)
        }
    }

    /// A cursor from which a reader of the tenant's events sees what is written from now on.
    package func presentCursor() async throws -> TenantEventCursor {
        try await store.read { try $0.events.presentCursor() }
    }

    /// Events of every session of the tenant after `cursor`, in `TenantEventCursor`'s order; waits up to `wait` for
    /// the first one if there is none yet. On a shared database an event is held back while an older transaction
    /// still runs, so an idle reader there looks again every second rather than only when woken.
    package func events(tenantID: Int64, after cursor: TenantEventCursor, limit: Int, wait: Duration) async throws -> [TenantEvent] {
        let deadline = ContinuousClock.now + wait
        let recheck: Duration = store.isShared ? .seconds(1) : wait
        while true {
            let seen = signal.version(sessionID: EventSignal.everySession)
            let events = try await store.read { try $0.events.list(tenantID: tenantID, after: cursor, limit: limit) }
            let remaining = deadline - ContinuousClock.now
            if !events.isEmpty || remaining <= .zero || Task.isCancelled {
                return events
            }
            await signal.wait(sessionID: EventSignal.everySession, seen: seen, timeout: min(remaining, recheck))
        }
    }
}
