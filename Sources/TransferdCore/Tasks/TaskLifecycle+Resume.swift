import Foundation
import GRDB

extension TaskLifecycle {
    /// The resume data of a task ending with `error`, when it keeps its partial file: its bytes can be continued,
    /// and the client asked for it (a cancel) or the failure was transient (retries or time ran out).
    func resumeData(for task: TransferTask, after error: TransferError) -> ResumeData? {
        guard let validator = task.resumeValidator, task.partialBytes > 0, files.partialSize(taskID: task.rowID) >= task.partialBytes,
            [.cancelled, .backgroundTaskExpired].contains(error.code) ? task.produceResumeData : error.isTransient
        else { return nil }
        return ResumeData(
            sessionID: task.sessionId,
            taskID: task.rowID,
            url: task.originalRequest.url,
            bytes: task.partialBytes,
            expectedBytes: task.countOfBytesExpected,
            validator: validator
        )
    }

    /// Removes a task's partial file: its bytes will not be continued.
    func discardPartial(of task: inout TransferTask) {
        files.removePartial(taskID: task.rowID)
        task.partialBytes = 0
    }

    /// Removes the partial files kept for the resume data of a session's completed tasks.
    func discardResumeData(sessionID: Int64, _ db: Database) throws {
        let taskIDs = try Int64.fetchAll(
            db,
            sql: "UPDATE tasks SET partial_bytes = 0 WHERE session_id = ? AND state = 'completed' AND partial_bytes > 0 RETURNING id",
            arguments: [sessionID]
        )
        for taskID in taskIDs { files.removePartial(taskID: taskID) }
    }

    /// Inserts `task` as the continuation of the download `resumeData` describes: it takes over the partial file
    /// (so the token works once) and starts with a range request after the kept bytes.
    func continueDownload(from resumeData: ResumeData, in task: inout TransferTask, _ db: Database) throws {
        guard resumeData.sessionID == task.sessionId else {
            throw Problem.invalidField("resumeData", "belongs to another session")
        }
        guard var source = try TransferTask.fetchOne(db, key: resumeData.taskID), source.state == .completed,
            source.partialBytes == resumeData.bytes, files.partialSize(taskID: resumeData.taskID) >= resumeData.bytes
        else {
            throw Problem.conflict("This resume data has been used already, or its partial file is gone; create the task without it.")
        }
        if task.originalRequest.headers.isEmpty { task.originalRequest.headers = source.originalRequest.headers }
        task.partialBytes = resumeData.bytes
        task.resumeValidator = resumeData.validator
        task.countOfBytesReceived = resumeData.bytes
        task.countOfBytesExpected = resumeData.expectedBytes
        try task.insert(db)
        source.partialBytes = 0
        try source.update(db)
        guard files.movePartial(from: source.rowID, to: task.rowID) else {
            throw TransferError(code: .cannotWriteToFile, message: "Could not take over the partial file (errno \(errno)).")
        }
    }

    /// The task once it is no longer `canceling` (its transfer has stopped), or as it is after `timeout`.
    func settled(_ task: TransferTask, timeout: Duration) async throws -> TransferTask {
        let deadline = ContinuousClock.now + timeout
        var task = task
        while task.state == .canceling, ContinuousClock.now < deadline {
            let seen = eventLog.signal.version(sessionID: task.sessionId)
            task = try await database.pool.read { [task] db in try TransferTask.fetchOne(db, key: task.rowID) } ?? task
            if task.state == .canceling {
                await eventLog.signal.wait(sessionID: task.sessionId, seen: seen, timeout: deadline - ContinuousClock.now)
            }
        }
        return task
    }
}
