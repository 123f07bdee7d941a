import Foundation
import TransferdDomain
import TransferdEngine

extension TaskService {
    /// Binds a new upload task to what it sends: a complete staged file, the content of a finished download of the
    /// same session, or an object of one of the tenant's stores. Fixes the body's length (with its multipart framing)
    /// up front; an object's is known once an attempt has asked the store (-1 until then).
    func bindUploadSource(
        _ upload: UploadTransfer,
        to task: inout TransferTask,
        tenantID: Int64,
        _ repositories: any Repositories
    ) async throws {
        var upload = upload
        let size: Int64?
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
        case .object(let location):
            guard try await repositories.objectStorages.find(tenantID: tenantID, name: location.storage) != nil else {
                throw DomainError.invalidField("from.storage", requirement: "names no storage of the tenant (`\(location.storage)`)")
            }
            size = nil
        }
        let framing = try await UploadJob(task: task, upload: upload, files: files, repositories).framing
        upload.countOfBytesExpectedToSend = size.map { $0 + (framing?.length ?? 0) } ?? -1
        task.transfer = .upload(upload)
    }
}
