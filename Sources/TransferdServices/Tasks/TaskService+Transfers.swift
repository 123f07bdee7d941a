import Foundation
import TransferdDomain
import TransferdEngine

/// What the engine reports of the transfers it runs, recorded with the events each report causes (reports that
/// arrive together share a transaction: `writes`).
extension TaskService: TransferReporter {
    /// After a restart nothing is transferring: tasks left `canceling` complete as cancelled (`running` ones stay
    /// queued), and background-task deadlines that passed while the service was down take effect, before anything
    /// of their sessions runs.
    package func prepareQueue() async throws {
        try await store.write { repositories in
            for var task in try repositories.tasks.inState(.canceling) {
                try transitions.apply(.transferEnded(.interrupted), to: &task, isTransferring: true, repositories)
            }
        }
        _ = try await backgroundTasks.processDeadlines()
    }

    /// An attempt that meant to continue the partial file writes `task.resumed_at_offset` (didResumeAtOffset) with
    /// where it did, or why it restarted.
    package func responseReceived(taskID: Int64, url: String, response: TransferResponse, start: AttemptStart?) async throws {
        try await writes.write { repositories in
            guard var task = try repositories.tasks.find(id: taskID), task.state == .running else { return }
            task.currentUrl = url
            task.response = response
            if let start {
                task.countOfBytesReceived = start.offset
                task.countOfBytesExpected = start.expectedBytes
                task.partialBytes = start.offset
                switch start.resumability {
                case .success(let validator): (task.resumeValidator, task.notResumableReason) = (validator, nil)
                case .failure(let reason): (task.resumeValidator, task.notResumableReason) = (nil, reason)
                }
            }
            try repositories.tasks.update(task)
            if let start, start.triedToResume {
                let data = EventData(
                    totalBytesExpectedToWrite: start.expectedBytes,
                    fileOffset: start.offset,
                    restartReason: start.restartReason
                )
                try eventLog.append(repositories, .taskResumedAtOffset, for: task, data: data)
            }
        }
    }

    /// Persists the counters and the flushed prefix, and writes `task.progress` (didWriteData) when bytes arrived
    /// since the last checkpoint. A task suspended or cancelled meanwhile reports no more progress.
    package func checkpoint(taskID: Int64, received: Int64, expected: Int64, bytesWritten: Int64, partialBytes: Int64) async throws {
        try await writes.write { repositories in
            guard try repositories.tasks.recordProgress(id: taskID, received: received, expected: expected, partialBytes: partialBytes),
                bytesWritten > 0, let task = try repositories.tasks.find(id: taskID)
            else { return }
            let data = EventData(bytesWritten: bytesWritten, totalBytesWritten: received, totalBytesExpectedToWrite: expected)
            try eventLog.append(repositories, .taskProgress, for: task, data: data)
        }
    }

    /// didSendBodyData: persists an upload's counters and writes `task.upload_progress`.
    package func uploadProgress(taskID: Int64, sent: Int64, expected: Int64, bytesSent: Int64) async throws {
        try await writes.write { repositories in
            guard try repositories.tasks.recordUploadProgress(id: taskID, sent: sent, expected: expected),
                let task = try repositories.tasks.find(id: taskID)
            else { return }
            let data = EventData(bytesSent: bytesSent, totalBytesSent: sent, totalBytesExpectedToSend: expected)
            try eventLog.append(repositories, .taskUploadProgress, for: task, data: data)
        }
    }

    package func replyKept(taskID: Int64, reply: StoredReply) async throws {
        try await writes.write { try $0.tasks.recordReply(id: taskID, reply: reply) }
    }

    /// Records how a transfer attempt ended. A transient failure is retried while the session's `maximumRetries`
    /// and the task's resource deadline allow.
    package func transferEnded(
        taskID: Int64,
        outcome: TaskStateMachine.TransferOutcome,
        bytes: Int64,
        release: @escaping @Sendable () -> Void
    ) async throws {
        try await writes.write { repositories in
            release()
            guard var task = try repositories.tasks.find(id: taskID) else { return }
            var input = TaskStateMachine.Input.transferEnded(outcome)
            if let attempt = TransferAttempt(outcome: outcome, bytes: bytes, endedAt: clock.now) {
                task.attempts.append(attempt)
                if case .failed(let error) = outcome, let retryAt = try retryDate(for: error, of: task, repositories) {
                    input = .transferFailedRetryable(error, at: retryAt)
                }
            }
            try transitions.apply(input, to: &task, isTransferring: true, repositories)
        }
    }

    /// When to try again after `error`, or nil when the task must fail now.
    private func retryDate(for error: TransferError, of task: TransferTask, _ repositories: any Repositories) throws -> Date? {
        guard error.isTransient, let session = try repositories.sessions.find(id: task.sessionId) else { return nil }
        let failures = task.attempts.count
        if let maximum = session.configuration.maximumRetries, failures > maximum { return nil }
        let policy = retryPolicy.bounded(by: session.configuration)
        let now = clock.now
        let retryAt = now.addingTimeInterval(policy.delay(afterFailures: failures, retryAfter: error.retryAfter).timeInterval)
        let deadline = task.createdAt.addingTimeInterval(session.configuration.timeoutIntervalForResource)
        return retryAt < deadline ? retryAt : nil
    }
}
