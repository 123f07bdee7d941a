import Foundation
import TransferdDomain
import TransferdEngine

extension TaskService {
    /// Binds a new upload task to what it sends: a complete staged file, or the content of a finished download
    /// of the same session. Fixes the body's length (with its multipart framing) up front.
    func bindUploadSource(
        _ upload: UploadTransfer,
        to task: inout TransferTask,
        tenantID: Int64,
        _ repositories: any Repositories
    ) async throws {
        var upload = upload
        let size: Int64
        switch upload.from {
        case .file(let publicID):
            guard let file = try await repositories.stagedFiles.find(publicID: publicID, tenantID: tenantID),
                file.expiresAt > clock.now || file.isComplete
            else {
                throw DomainError.invalidField("from.file", requirement: "does not name a file (`\(publicID)`)")
            }
            guard file.isComplete else {
                throw DomainError.conflict(
                    "File `\(publicID)` is still being uploaded (\(file.uploadOffset) of \(file.uploadLength) bytes)."
                )
            }
            upload.sourceFileId = file.rowID
            size = file.uploadLength
        case .task(let taskIdentifier):
            let download = try await repositories.tasks.find(sessionID: task.sessionId, taskIdentifier: taskIdentifier)
            guard let download, let file = download.transfer.download?.file else {
                throw DomainError.conflict("Task \(taskIdentifier) has no downloaded content in this session to upload.")
            }
            upload.sourceTaskId = download.rowID
            size = file.size
        }
        let framing = try await UploadJob(task: task, upload: upload, files: files, repositories).framing
        upload.countOfBytesExpectedToSend = size + (framing?.length ?? 0)
        task.transfer = .upload(upload)
    }
}
