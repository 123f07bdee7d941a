import Foundation
import GRDB
import Logging
import ServiceLifecycle

/// Removes what has outlived its keeping, every `interval`: the content of finished downloads and the reply
/// bodies of uploads once their session's `retentionPeriod` has passed since completion (writing
/// `task.content_expired`), staged files past their expiry, and idempotency keys older than a day. Nothing that a
/// waiting upload will send is removed.
struct RetentionSweeper: Service {
    let database: AppDatabase
    let eventLog: EventLog
    let files: FileStore
    let interval: Duration
    let logger: Logger

    func run() async throws {
        while !Task.isShuttingDownGracefully {
            do {
                try await sweep(now: Date())
            } catch {
                logger.error("could not remove expired content", metadata: ["error": "\(error)"])
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }

    /// One pass; files leave the disk only once the rows that name them are committed.
    func sweep(now: Date) async throws {
        let (taskIDs, fileIDs) = try await database.pool.write { db in
            let expiredTasks = try TransferTask.fetchAll(
                db,
                sql: """
                    SELECT t.* FROM tasks t JOIN sessions s ON s.id = t.session_id
                    WHERE t.state = 'completed' AND (t.file IS NOT NULL OR t.reply IS NOT NULL)
                      AND julianday(t.completed_at) + COALESCE(json_extract(s.configuration, '$.retentionPeriod'), 604800) / 86400.0 < julianday(?)
                      AND NOT EXISTS (SELECT 1 FROM tasks u WHERE u.source_task_id = t.id AND u.state <> 'completed')
                    """,
                arguments: [now]
            )
            for var task in expiredTasks {
                let file = task.file
                (task.file, task.reply) = (nil, nil)
                try task.update(db)
                try eventLog.append(db, .taskContentExpired, for: task, data: EventData(file: file))
            }
            let fileIDs = try Int64.fetchAll(
                db,
                sql: """
                    DELETE FROM files WHERE expires_at < ?
                      AND NOT EXISTS (SELECT 1 FROM tasks u WHERE u.source_file_id = files.id AND u.state <> 'completed')
                    RETURNING id
                    """,
                arguments: [now]
            )
            try db.execute(
                sql: "DELETE FROM idempotency_keys WHERE created_at < ?",
                arguments: [now.addingTimeInterval(-IdempotencyStore.lifetime)]
            )
            return (expiredTasks.map(\.rowID), fileIDs)
        }
        for taskID in taskIDs {
            files.removeContent(taskID: taskID)
            files.removeReply(taskID: taskID)
        }
        for fileID in fileIDs { files.removeStaged(fileID: fileID) }
    }
}
