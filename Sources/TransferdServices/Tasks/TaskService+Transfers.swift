import Foundation
import Logging
import TransferdDomain
import TransferdEngine

/// What the engine reports of the transfers it runs, recorded with the events each report causes (reports that
/// arrive together share a transaction: `writes`).
extension TaskService: TransferReporter {
    /// After a start, nothing this instance held is transferring: its leases (every lease, when it owns the
    /// database) expire, for the scheduler to take back; background-task deadlines that passed while the service was
    /// down take effect, before anything of their sessions runs.
    package func prepareQueue() async throws {
        let owner = instance.leftoverLeasesOwner
        try await store.write { try await $0.queue.expireLeases(ownedBy: owner) }
        _ = try await backgroundTasks.processDeadlines()
    }

    /// A lease of this instance whose transfer is still registered here is left to the `LeaseKeeper`: it renews
    /// it, or stops the transfer.
    package func takeBackExpiredLeases(at now: Date) async throws -> Bool {
        let (owner, transfers) = (instance.id, transfers)
        let takeBack: @Sendable (TransferTask) -> Bool = { !($0.lease?.owner == owner && transfers[$0.rowID] != nil) }
        let owners = try await store.write { repositories in
            let expired = try await repositories.queue.expiredLeases(at: now).filter(takeBack)
            for var task in expired {
                try await repositories.queue.releaseLease(id: task.rowID)
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

    /// A download gave up one of its sources: `task.source_dropped`.
    package func sourceDropped(_ transfer: ActiveTransfer, _ dropped: SourceDropped) async throws {
        let taskID = transfer.taskID
        try await writeIfStillOwned(transfer, stopped: ()) { repositories, owner in
            guard let task = try await repositories.tasks.find(id: taskID), task.state == .running, task.lease?.owner == owner else {
                return
            }
            try await eventLog.append(repositories, .taskSourceDropped(dropped), for: task)
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
        keptRanges: KeptRanges?,
        objectUpload: ObjectUploadProgress?
    ) async throws
        -> CheckpointVerdict
    {
        let (taskID, quotas) = (transfer.taskID, quotas)
        return try await writeIfStillOwned(transfer, stopped: .unwanted) { repositories, owner in
            transfer.rowWritten()
            try await recordArrivedResponse(of: transfer, repositories)
            guard
                try await repositories.progress.recordProgress(
                    id: taskID,
                    owner: owner,
                    received: received,
                    expected: expected,
                    partialBytes: partialBytes,
                    keptRanges: keptRanges,
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
            let held = try await repositories.progress.reservation(id: taskID)
            switch quotas.grantStorage(held: held, needed: needed, wanted: wanted, standing: standing) {
            case .refused(let breach): return .overQuota(breach)
            case .through(let through) where through > held:
                let reserved = try await repositories.progress.reserve(id: taskID, owner: owner, through: through)
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
            guard try await repositories.progress.recordUploadProgress(id: taskID, owner: owner, sent: sent, expected: expected),
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
            return try await repositories.progress.recordObjectUpload(id: taskID, owner: owner, objectUpload: objectUpload)
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
        if instance.sharesDatabase, await ends.submit(end, { await TransferEnds(service: self).writeAlone($0) }) { return }
        try await writes.write(end, by: TransferEnds(service: self), forSession: transfer.queue.sessionID)
    }
}
