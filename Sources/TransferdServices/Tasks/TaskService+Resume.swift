import Foundation
import TransferdDomain
import TransferdStorage

extension TaskService {
    /// Inserts `task` as the continuation of the download `resumeData` describes: it takes over the partial file
    /// (so the token works once) and starts with a range request after the kept bytes.
    func continueDownload(from resumeData: ResumeData, in task: TransferTask, _ repositories: any Repositories) async throws -> TransferTask
    {
        guard resumeData.sessionID == task.sessionId else {
            throw DomainError.invalidField("resumeData", requirement: "belongs to another session")
        }
        guard var source = try await repositories.tasks.find(id: resumeData.taskID), source.state == .completed,
            source.transfer.download?.partialBytes == resumeData.bytes, files.partialSize(taskID: resumeData.taskID) >= resumeData.bytes
        else {
            throw DomainError.conflict("This resume data has been used already, or its partial file is gone; create the task without it.")
        }
        var task = task
        if task.originalRequest.headers.isEmpty { task.originalRequest.headers = source.originalRequest.headers }
        task.transfer.updateDownload { download in
            (download.partialBytes, download.resumeValidator) = (resumeData.bytes, resumeData.validator)
        }
        task.countOfBytesReceived = resumeData.bytes
        task.countOfBytesExpected = resumeData.expectedBytes
        task = try await repositories.tasks.insert(task)
        source.transfer.updateDownload { $0.partialBytes = 0 }
        try await repositories.tasks.update(source)
        // The body of a write may run again (a conflict on PostgreSQL): the source's file goes once this one commits.
        guard files.sharePartial(from: source.rowID, to: task.rowID) else {
            throw TransferError(code: .cannotWriteToFile, message: "Could not take over the partial file (errno \(errno)).")
        }
        let (files, sourceID, taskID) = (files, source.rowID, task.rowID)
        repositories.afterCommit { files.removePartial(taskID: sourceID) }
        repositories.ifRolledBack { files.removePartial(taskID: taskID) }
        return task
    }
}
