import Foundation
import GRDB

extension TaskLifecycle {
    /// Binds a new upload task to what it sends: a complete staged file, or the content of a finished download
    /// of the same session. Fixes the body's length (with its multipart framing) up front.
    func bindUploadSource(_ source: UploadSource, to task: inout TransferTask, tenantID: Int64, _ db: Database) throws {
        let size: Int64
        switch source {
        case .file(let publicID):
            let sameTenant = Column("tenant_id") == tenantID && Column("public_id") == publicID
            guard let file = try StagedFile.filter(sameTenant).fetchOne(db), file.expiresAt > Date() || file.isComplete
            else {
                throw Problem.invalidField("from.file", "does not name a file (`\(publicID)`)")
            }
            guard file.isComplete else {
                throw Problem.conflict("File `\(publicID)` is still being uploaded (\(file.uploadOffset) of \(file.uploadLength) bytes).")
            }
            task.sourceFileId = file.rowID
            size = file.uploadLength
        case .task(let taskIdentifier):
            let download = try TransferTask.fetch(db, sessionID: task.sessionId, taskIdentifier: taskIdentifier)
            guard let download, download.kind == .download, let file = download.file else {
                throw Problem.conflict("Task \(taskIdentifier) has no downloaded content in this session to upload.")
            }
            task.sourceTaskId = download.rowID
            size = file.size
        }
        task.uploadFrom = source
        let framing = try UploadJob(task: task, files: files, db).framing
        task.countOfBytesExpectedToSend = size + (framing?.length ?? 0)
    }

    /// didSendBodyData: persists the counters of an upload under way and writes `task.upload_progress`.
    func recordUploadProgress(taskID: Int64, sent: Int64, expected: Int64, bytesSent: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE tasks SET count_of_bytes_sent = ?, count_of_bytes_expected_to_send = ? WHERE id = ? AND state = 'running'",
                arguments: [sent, expected, taskID]
            )
            guard db.changesCount > 0, let task = try TransferTask.fetchOne(db, key: taskID) else { return }
            let data = EventData(bytesSent: bytesSent, totalBytesSent: sent, totalBytesExpectedToSend: expected)
            try eventLog.append(db, .taskUploadProgress, for: task, data: data)
        }
    }

    /// The kept body of an upload's final response.
    func recordReply(taskID: Int64, reply: StoredReply) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE tasks SET reply = ? WHERE id = ?",
                arguments: [String(decoding: try JSONEncoder().encode(reply), as: UTF8.self), taskID]
            )
        }
    }
}
