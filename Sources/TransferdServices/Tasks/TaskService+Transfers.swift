import Foundation
import Logging
import TransferdDomain
import TransferdEngine
import TransferdStorage

/// What the engine reports of the transfers it runs, recorded with the events each report causes (reports that
/// arrive together share a transaction: `writes`).
extension TaskService: TransferReporter {
    /// After a start, nothing this instance held is transferring: its leases (every lease, when it owns the
    /// database) expire, for the scheduler to take back; background-task deadlines that passed while the service was
    /// down take effect, before anything of their sessions runs.
    package func prepareQueue() async throws {
        let owner = store.isShared ? instance.id : nil
        try await store.write { try await $0.tasks.expireLeases(ownedBy: owner) }
        _ = try await backgroundTasks.processDeadlines()
    }

    /// A lease of this instance whose transfer is still registered here is left to the `LeaseKeeper`: it renews
    /// it, or stops the transfer.
    package func takeBackExpiredLeases(at now: Date) async throws -> Bool {
        let (owner, transfers) = (instance.id, transfers)
        let takeBack: @Sendable (TransferTask) -> Bool = { !($0.lease?.owner == owner && transfers[$0.rowID] != nil) }
        let owners = try await store.write { repositories in
            let expired = try await repositories.tasks.expiredLeases(at: now).filter(takeBack)
            for var task in expired {
                try await repositories.tasks.releaseLease(id: task.rowID)
                task.lease = nil
                if task.state == .canceling {
                    try await transitions.apply(.transferEnded(.interrupted), to: &task, isTransferring: true, repositories)
                }
            }
            if !expired.isEmpty { repositories.announce(.work) }
            return Dictionary(grouping: expired, by: { $0.lease?.owner ?? "" }).mapValues(\.count)
        }
        for (owner, count) in owners where owner != instance.id {
            logger.warning("took back tasks whose lease expired", metadata: ["owner": "\(owner)", "tasks": "\(count)"])
        }
        return !owners.isEmpty
    }

    /// A redirect the transfer met (willPerformHTTPRedirection) writes `task.redirected`, followed or not.
    package func redirected(_ transfer: ActiveTransfer, statusCode: Int, from: String, to: String, followed: Bool) async throws {
        let taskID = transfer.taskID
        try await writeIfStillOwned(transfer, stopped: ()) { repositories, owner in
            guard let task = try await repositories.tasks.find(id: taskID), task.state == .running, task.lease?.owner == owner else {
                return
            }
            let redirection = Redirection(statusCode: statusCode, from: from, to: to, followed: followed)
            try await eventLog.append(repositories, .taskRedirected(redirection), for: task)
        }
    }

    /// didReceiveResponse of an upload: one guarded write of the task (no read first), together with the responses of
    /// the other transfers that a group commit gathers (``ResponseRecords``).
    package func responseReceived(_ transfer: ActiveTransfer, url: String, response: TransferResponse, start: AttemptStart?) async throws {
        let record = ResponseRecords.Item(transfer: transfer, arrived: ArrivedResponse(url: url, response: response, start: start))
        try await writes.write(record, by: ResponseRecords(service: self), forSession: transfer.queue.sessionID)
    }

    /// Records the response that `transfer` received and no write has recorded yet (a download's, kept on its transfer
    /// until its next checkpoint or its end), first in the checkpoint's transaction.
    private func recordArrivedResponse(of transfer: ActiveTransfer, _ repositories: any Repositories) async throws {
        guard let arrived = transfer.unrecordedResponse else { return }
        _ = try await ResponseRecords(service: self).write([ResponseRecords.Item(transfer: transfer, arrived: arrived)], repositories)
        repositories.afterCommit { transfer.responseRecorded() }
    }

    /// Persists the counters and the flushed prefix, and writes `task.progress` (didWriteData) when bytes arrived
    /// since the last checkpoint. A task being cancelled takes its transfer's last checkpoint (its resume data
    /// continues from it) but no progress; one suspended meanwhile, or leased to another instance, takes nothing more.
    package func checkpoint(
        _ transfer: ActiveTransfer,
        received: Int64,
        expected: Int64,
        bytesWritten: Int64,
        partialBytes: Int64,
        objectUpload: ObjectUploadProgress?
    ) async throws
        -> CheckpointVerdict
    {
        let (taskID, quotas) = (transfer.taskID, quotas)
        return try await writeIfStillOwned(transfer, stopped: .unwanted) { repositories, owner in
            transfer.rowWritten()
            try await recordArrivedResponse(of: transfer, repositories)
            guard
                try await repositories.tasks.recordProgress(
                    id: taskID,
                    owner: owner,
                    received: received,
                    expected: expected,
                    partialBytes: partialBytes,
                    objectUpload: objectUpload
                ),
                let task = try await repositories.tasks.find(id: taskID), task.state == .running
            else { return .unwanted }
            if bytesWritten > 0 {
                let progress = DownloadProgress(
                    bytesWritten: bytesWritten,
                    totalBytesWritten: received,
                    totalBytesExpectedToWrite: expected
                )
                try await eventLog.append(repositories, .taskProgress(progress), for: task)
            }
            // Every byte written was reserved first; a tenant keeps more than its quota only once it was lowered.
            guard try await quotas.limitsStorage(of: transfer.tenantID, repositories),
                let breach = try await quotas.storageOverdrawn(tenant: transfer.tenantID, repositories)
            else { return .proceed }
            return .overQuota(breach)
        }
    }

    /// Reserves stored bytes for what `transfer` will write by `path` before it writes them, when its tenant has a quota of
    /// them: granted against the tenant's standing, which counts every reservation, so that transfers running at
    /// once cannot together pass the quota (``StorageGrant``). A tenant without such a quota (the quotas as last
    /// read) costs no write.
    package func reserve(
        _ transfer: ActiveTransfer,
        for path: StoringPath,
        through needed: Int64,
        asFarAs wanted: Int64
    ) async throws -> ReservationVerdict {
        let (taskID, tenantID, quotas) = (transfer.taskID, transfer.tenantID, quotas)
        guard try await store.lookup({ try await quotas.limitsStorage(of: tenantID, $0) }) else {
            return .granted(through: max(needed, wanted))
        }
        let verdict: ReservationVerdict = try await writeIfStillOwned(transfer, stopped: .unwanted) { repositories, owner in
            let standing = try await repositories.tenants.lockedStanding(id: tenantID)
            let held = try await repositories.tasks.reservation(id: taskID)
            switch quotas.grantStorage(held: held, needed: needed, wanted: wanted, standing: standing) {
            case .refused(let breach): return .overQuota(breach)
            case .through(let through) where through > held:
                let reserved = try await repositories.tasks.reserve(id: taskID, owner: owner, through: through)
                return reserved ? .granted(through: through) : .unwanted
            case .through(let through): return .granted(through: through)
            }
        }
        if case .overQuota = verdict { metrics.storageRefused(path) }
        return verdict
    }

    /// didSendBodyData: persists an upload's counters and writes `task.upload_progress`.
    package func uploadProgress(_ transfer: ActiveTransfer, sent: Int64, expected: Int64, bytesSent: Int64) async throws -> Bool {
        let taskID = transfer.taskID
        return try await writeIfStillOwned(transfer, stopped: false) { repositories, owner in
            transfer.rowWritten()
            guard try await repositories.tasks.recordUploadProgress(id: taskID, owner: owner, sent: sent, expected: expected),
                let task = try await repositories.tasks.find(id: taskID)
            else { return false }
            let progress = UploadProgress(bytesSent: bytesSent, totalBytesSent: sent, totalBytesExpectedToSend: expected)
            try await eventLog.append(repositories, .taskUploadProgress(progress), for: task)
            return true
        }
    }

    package func objectUploadBegun(_ transfer: ActiveTransfer, objectUpload: ObjectUploadProgress) async throws -> Bool {
        let taskID = transfer.taskID
        return try await writeIfStillOwned(transfer, stopped: false) { repositories, owner in
            transfer.rowWritten()
            return try await repositories.tasks.recordObjectUpload(id: taskID, owner: owner, objectUpload: objectUpload)
        }
    }

    package func replyKept(_ transfer: ActiveTransfer, reply: StoredReply) async throws {
        let taskID = transfer.taskID
        try await writeIfStillOwned(transfer, stopped: ()) { repositories, owner in
            guard try await repositories.tasks.find(id: taskID)?.lease?.owner == owner else { return }
            transfer.rowWritten()
            try await repositories.tasks.recordReply(id: taskID, reply: reply)
        }
    }

    /// Runs `body` in a write for `transfer`'s session while this instance still runs the transfer, with the instance's
    /// id to guard the task's writes by its lease; answers `stopped` without writing once the transfer has stopped.
    private func writeIfStillOwned<T: Sendable>(
        _ transfer: ActiveTransfer,
        stopped: T,
        _ body: @escaping @Sendable (any Repositories, _ owner: String) async throws -> T
    ) async throws -> T {
        let (owner, transfers) = (instance.id, transfers)
        return try await writes.write(forSession: transfer.queue.sessionID) { repositories in
            guard transfers.runs(transfer) else { return stopped }
            return try await body(repositories, owner)
        }
    }

    /// Records how a transfer attempt ended, and ends its lease, together with the ends of the other transfers that
    /// a group commit gathers (``TransferEnds``). A transient failure is retried while the session's `maximumRetries`
    /// and the task's resource deadline allow. The end of a transfer whose lease this instance lost is not recorded:
    /// whoever took the task over continues it.
    package func transferEnded(
        _ transfer: ActiveTransfer,
        outcome: TaskStateMachine.TransferOutcome,
        bytes: Int64,
        release: @escaping @Sendable () -> Void
    ) async throws {
        let end = TransferEnds.Item(transfer: transfer, outcome: outcome, bytes: bytes, release: release, traceparent: Trace.parent)
        if store.isShared, await ends.submit(end, { await TransferEnds(service: self).writeAlone($0) }) { return }
        try await writes.write(end, by: TransferEnds(service: self), forSession: transfer.queue.sessionID)
    }

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
            let (released, workloads) = try await repositories.tasks.releaseLeases(
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
            }
        }
        try await transitions.apply(input, to: &task, isTransferring: true, repositories, holding: held)
    }

    /// Responses that transfers received, written together: one guarded `UPDATE` of their tasks (by the lease's
    /// owner, of running tasks only), then the `task.resumed_at_offset` events together (didResumeAtOffset: an attempt
    /// that meant to continue the partial file says where it did, or why it restarted).
    struct ResponseRecords: BatchWrite {
        struct Item: Sendable {
            let transfer: ActiveTransfer
            let received: ReceivedResponse
            let start: AttemptStart?

            init(transfer: ActiveTransfer, arrived: ArrivedResponse) {
                self.transfer = transfer
                start = arrived.start
                received = ReceivedResponse(
                    currentUrl: Redaction.url(arrived.url),
                    response: arrived.response,
                    start: arrived.start.map {
                        ReceivedResponse.Start(offset: $0.offset, expectedBytes: $0.expectedBytes, resumability: $0.resumability)
                    }
                )
            }

            /// `task.resumed_at_offset` (didResumeAtOffset), when the attempt meant to continue the partial file.
            func resumedEvent(taskIdentifier: Int64) -> EventLog.Entry? {
                guard let start, start.triedToResume else { return nil }
                return EventLog.Entry(
                    sessionID: transfer.queue.sessionID,
                    .taskResumedAtOffset(
                        ResumedAtOffset(
                            totalBytesExpectedToWrite: start.expectedBytes,
                            fileOffset: start.offset,
                            restartReason: start.restartReason
                        )
                    ),
                    taskIdentifier: taskIdentifier,
                    kind: transfer.kind
                )
            }
        }

        let service: TaskService

        func write(_ items: [Item], _ repositories: any Repositories) async throws -> [Void] {
            let running = items.filter { service.transfers.runs($0.transfer) }
            for item in running { item.transfer.rowWritten() }
            let identifiers = try await repositories.tasks.recordResponses(
                owner: service.instance.id,
                running.map { ($0.transfer.taskID, $0.received) }
            )
            let resumed = running.compactMap { item in
                identifiers[item.transfer.taskID].flatMap { item.resumedEvent(taskIdentifier: $0) }
            }
            if !resumed.isEmpty { try await service.eventLog.append(repositories, resumed) }
            return items.map { _ in () }
        }
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
