import Foundation
import Logging
import Tracing
import TransferdDomain
import TransferdEngine
import TransferdStorage

extension TaskService {
    /// The ends of transfers, written together: their leases end as their tasks and their sessions' workloads are
    /// read (one statement), and their tasks' rows and events are held back and written together (one more) once
    /// every end is worked out.
    struct TransferEnds: BatchWrite {
        struct Item: Sendable {
            let transfer: ActiveTransfer
            let outcome: TaskStateMachine.TransferOutcome
            let bytes: Int64
            let release: @Sendable () -> Void
            /// The trace of the request the transfer serves, which its events carry.
            let traceparent: String?
        }

        let service: TaskService

        func write(_ items: [Item], _ repositories: any Repositories) async throws -> [Void] {
            let (released, workloads) = try await repositories.queue.releaseLeases(
                ids: items.map(\.transfer.taskID),
                owner: service.instance.id
            )
            var tasks = Dictionary(released.map { ($0.rowID, $0) }, uniquingKeysWith: { first, _ in first })
            let held = HeldWrites(tasks: released, workloads: workloads)
            var requeued = false
            for item in items {
                requeued =
                    try await record(item, task: tasks.removeValue(forKey: item.transfer.taskID), session: nil, held, repositories)
                    || requeued
            }
            // A task back in its queue is work; otherwise only a worker and a per-host slot were freed.
            if !released.isEmpty { repositories.announce(requeued ? .work : .capacity) }
            try await service.transitions.flush(held, repositories)
            return items.map { _ in () }
        }

        /// Writes the ends of `items` without a transaction (``TaskEnding``), one statement for each session: first
        /// from their tasks as their leases left them, then, for those whose rows changed since (a checkpoint, a
        /// renewal, a client's suspend), from their tasks and sessions as one statement reads them again, as long as
        /// they have not changed (``TaskRepository/end(_:)``). Returns for each whether it was written; a
        /// transaction writes the others. (A background task's transfer settles its background task as it
        /// completes: a transaction ends it.)
        func writeAlone(_ items: [Item]) async -> [Bool] {
            var written = [Bool](repeating: false, count: items.count)
            let leased = items.indices.compactMap { index in
                items[index].transfer.leasedRow.flatMap { $0.task.backgroundTask == nil ? (index, $0) : nil }
            }
            await write(items, from: Dictionary(leased, uniquingKeysWith: { first, _ in first }), marking: &written)
            let rest = items.indices.filter { !written[$0] }
            let (store, owner, ids) = (service.store, service.instance.id, items.map(\.transfer.taskID))
            guard !rest.isEmpty,
                let bases = try? await store.lookup(
                    counted: .write,
                    { try await $0.tasks.endingBases(ids: rest.map { ids[$0] }, owner: owner) }
                )
            else { return written }
            let read = Dictionary(
                bases.filter { $0.task.backgroundTask == nil && $0.session?.state == .active }.map { ($0.task.rowID, $0) },
                uniquingKeysWith: { first, _ in first }
            )
            await write(
                items,
                from: Dictionary(
                    rest.compactMap { index in read[ids[index]].map { (index, $0) } },
                    uniquingKeysWith: { first, _ in first }
                ),
                marking: &written
            )
            return written
        }

        /// Writes the ends of the items of `bases` (each by its index in `items`), one statement for each session and
        /// for each trace within it (its events carry the trace), and marks those written.
        private func write(_ items: [Item], from bases: [Int: TaskEnding.Basis], marking written: inout [Bool]) async {
            let groups = Dictionary(grouping: bases.keys.sorted()) { [String(bases[$0]!.task.sessionId), items[$0].traceparent] }
            for indices in groups.values {
                do {
                    let wrote = try await Trace.$parent.withValue(items[indices[0]].traceparent) {
                        try await service.store.alone { repositories in
                            try await write(indices.map { items[$0] }, from: indices.map { bases[$0]! }, repositories)
                            return true
                        }
                    }
                    guard wrote == true else { continue }
                    for index in indices { written[index] = true }
                } catch {
                    service.logger.debug("ends are written from their tasks read again", metadata: ["reason": "\(error)"])
                }
            }
        }

        /// Writes the ends of `items` in one statement (``TaskEnding``), from their tasks (and their session, when
        /// read with them) as `bases` know them (the tasks still leased to this instance); ``Changed`` when they
        /// changed since.
        private func write(_ items: [Item], from bases: [TaskEnding.Basis], _ repositories: any Repositories) async throws {
            let tasks = bases.map { basis in
                var task = basis.task
                task.lease = nil
                return task
            }
            let held = HeldWrites(tasks: tasks, flushesEarly: false)
            // Every task's row is written: it ends the lease.
            for task in tasks { held.hold(task) }
            var requeued = false
            for (item, task) in zip(items, tasks) {
                requeued = try await record(item, task: task, session: bases[0].session, held, repositories) || requeued
            }
            repositories.announce(requeued ? .work : .capacity)
            guard
                let ending = try await service.transitions.ending(held, from: bases, owner: service.instance.id, repositories),
                let events = try await repositories.tasks.end(ending)
            else { throw Changed() }
            service.eventLog.count(events, of: ending.tasks.map(\.task))
        }

        /// What an end alone was worked out from changed before it was written.
        struct Changed: Error {}

        /// Records the end of `item` for its task (nil: its lease was lost), read with its lease ended; returns
        /// whether the task went back to its queue. `session` is the task's, when it was read with it.
        private func record(
            _ item: Item,
            task: TransferTask?,
            session: Session?,
            _ held: HeldWrites,
            _ repositories: any Repositories
        ) async throws -> Bool {
            let (logger, metrics, files) = (service.logger, service.metrics, service.files)
            let (transfer, outcome) = (item.transfer, item.outcome)
            // Content the attempt published and the task did not take goes, while the attempt still holds the
            // partial file (`release` lets go of it): no later attempt can have published meanwhile.
            let published = if case .succeeded = outcome, transfer.kind == .download { true } else { false }
            defer { repositories.afterCommit(item.release) }
            repositories.afterCommit { metrics.attemptEnded(outcome, after: .now - transfer.startedAt) }
            guard var task else {
                logger.warning(
                    "a transfer ended after its lease was lost; its outcome is not recorded",
                    metadata: ["task": "\(transfer.taskID)"]
                )
                if published { repositories.afterCommit { files.removeContent(taskID: transfer.taskID) } }
                return false
            }
            // The response no write recorded yet goes with the task's row (and its event, before the end's).
            if let arrived = transfer.unrecordedResponse {
                let response = ResponseRecords.Item(transfer: transfer, arrived: arrived)
                task.record(response.received)
                held.hold(task)
                if let resumed = response.resumedEvent(taskIdentifier: task.taskIdentifier) { held.hold([resumed]) }
            }
            try await service.record(item, of: &task, session: session, held, repositories)
            if published, task.transfer.download?.file == nil { repositories.afterCommit { files.removeContent(taskID: transfer.taskID) } }
            return task.state == .running
        }
    }

    /// Feeds the end of one transfer to its task (whose lease has ended), holding the writes in `held`.
    private func record(
        _ end: TransferEnds.Item,
        of task: inout TransferTask,
        session known: Session?,
        _ held: HeldWrites,
        _ repositories: any Repositories
    ) async throws {
        let sessionID = task.sessionId
        let session = { if let known { known } else { try await repositories.sessions.find(id: sessionID) } }
        let transactions = end.transfer.transactions
        if !transactions.isEmpty {
            var metrics = task.metrics ?? TaskMetrics()
            metrics.append(transactions)
            task.metrics = metrics
        }
        // URLCredentialStorage: a credential the session keeps for the space is tried before the client is asked.
        if case .challenged(let space, 0) = end.outcome,
            let kept = try await session()?.credentials.first(where: { $0.protectionSpace == space })
        {
            task.credentials.keep(kept)
            held.hold(task)
            return
        }
        // An upload from a bucket learns its length from the store when its attempt begins.
        if case .upload(var upload) = task.transfer, upload.countOfBytesExpectedToSend < 0, end.transfer.counters.expected >= 0 {
            upload.countOfBytesExpectedToSend = end.transfer.counters.expected
            task.transfer = .upload(upload)
        }
        var input = TaskStateMachine.Input.transferEnded(end.outcome)
        if let attempt = TransferAttempt(outcome: end.outcome, bytes: end.bytes, endedAt: clock.now) {
            task.attempts.append(attempt)
            if case .failed(let error) = end.outcome, error.isTransient,
                let retryAt = retryDate(for: error, of: task, in: try await session())
            {
                input = .transferFailedRetryable(error, at: retryAt)
                let trace = end.transfer.trace
                repositories.afterCommit { trace.note("retry", ["transferd.retry_at": "\(retryAt.formatted(.iso8601))"]) }
            }
        }
        try await transitions.apply(input, to: &task, isTransferring: true, repositories, holding: held)
    }

    /// When to try again after the transient `error`, or nil when the task must fail now.
    private func retryDate(for error: TransferError, of task: TransferTask, in session: Session?) -> Date? {
        guard let session else { return nil }
        let failures = task.attempts.count
        if let maximum = session.configuration.maximumRetries, failures > maximum { return nil }
        let policy = retryPolicy.bounded(by: session.configuration)
        let now = clock.now
        let retryAt = now.addingTimeInterval(policy.delay(afterFailures: failures, retryAfter: error.retryAfter).timeInterval)
        let deadline = task.createdAt.addingTimeInterval(session.configuration.timeoutIntervalForResource)
        return retryAt < deadline ? retryAt : nil
    }
}
