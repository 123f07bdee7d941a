import Foundation
import GRDB

extension TaskLifecycle {
    /// A transfer attempt begins: the counters restart from zero (the partial file is rewritten from the start).
    func recordAttemptStarted(taskID: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: """
                    UPDATE tasks SET started_at = COALESCE(started_at, ?), count_of_bytes_received = 0
                    WHERE id = ? AND state = 'running'
                    """,
                arguments: [Date(), taskID]
            )
        }
    }

    /// didReceiveResponse: the final response head, the URL it came from after redirects, and the expected length.
    func recordResponse(taskID: Int64, url: String, response: TransferResponse, expectedBytes: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE tasks SET current_url = ?, response = ?, count_of_bytes_expected = ? WHERE id = ? AND state = 'running'",
                arguments: [url, String(decoding: try JSONEncoder().encode(response), as: UTF8.self), expectedBytes, taskID]
            )
        }
    }

    /// A checkpoint of a running transfer: persists its counters and writes `task.progress` (didWriteData).
    func recordProgress(taskID: Int64, received: Int64, expected: Int64, bytesWritten: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE tasks SET count_of_bytes_received = ?, count_of_bytes_expected = ? WHERE id = ? AND state = 'running'",
                arguments: [received, expected, taskID]
            )
            // A task suspended or cancelled meanwhile reports no more progress.
            guard db.changesCount > 0, let task = try TransferTask.fetchOne(db, key: taskID) else { return }
            let data = EventData(bytesWritten: bytesWritten, totalBytesWritten: received, totalBytesExpectedToWrite: expected)
            try eventLog.append(db, .taskProgress, for: task, data: data)
        }
    }
}
