import Foundation
import GRDB

extension TaskLifecycle {
    /// A transfer attempt begins.
    func recordAttemptStarted(taskID: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE tasks SET started_at = COALESCE(started_at, ?) WHERE id = ? AND state = 'running'",
                arguments: [Date(), taskID]
            )
        }
    }

    /// didReceiveResponse: the final response head and the URL it came from after redirects. For a successful one,
    /// `start` says where its bytes go and whether they can be continued later; an attempt that meant to continue
    /// the partial file writes `task.resumed_at_offset` (didResumeAtOffset) with where it did, or why it restarted.
    func recordResponse(taskID: Int64, url: String, response: TransferResponse, start: AttemptStart?) async throws {
        try await database.pool.write { db in
            guard var task = try TransferTask.fetchOne(db, key: taskID), task.state == .running else { return }
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
            try task.update(db)
            if let start, start.triedToResume {
                let data = EventData(
                    totalBytesExpectedToWrite: start.expectedBytes,
                    fileOffset: start.offset,
                    restartReason: start.restartReason
                )
                try eventLog.append(db, .taskResumedAtOffset, for: task, data: data)
            }
        }
    }

    /// A checkpoint of a running transfer: persists its counters and the flushed prefix of its partial file, and
    /// writes `task.progress` (didWriteData) when bytes arrived since the last one.
    func recordProgress(taskID: Int64, received: Int64, expected: Int64, bytesWritten: Int64, partialBytes: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: """
                    UPDATE tasks SET count_of_bytes_received = ?, count_of_bytes_expected = ?, partial_bytes = ?
                    WHERE id = ? AND state = 'running'
                    """,
                arguments: [received, expected, partialBytes, taskID]
            )
            // A task suspended or cancelled meanwhile reports no more progress.
            guard db.changesCount > 0, bytesWritten > 0, let task = try TransferTask.fetchOne(db, key: taskID) else { return }
            let data = EventData(bytesWritten: bytesWritten, totalBytesWritten: received, totalBytesExpectedToWrite: expected)
            try eventLog.append(db, .taskProgress, for: task, data: data)
        }
    }
}
