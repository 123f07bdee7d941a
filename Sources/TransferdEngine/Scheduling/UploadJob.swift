import Foundation
import TransferdDomain
import TransferdStorage

/// What an upload attempt sends and how, resolved from the task's ``UploadTransfer`` and its source when the scheduler
/// claims it.
package struct UploadJob: Sendable {
    package let method: String
    /// Where the bytes sent are.
    package let source: Source
    package let contentType: String
    /// The file name a multipart part carries.
    package let filename: String
    package let multipart: MultipartForm?
    /// Where the reply body is kept in the content store; nil keeps it in the data directory.
    package let replyLocation: ObjectLocation?

    /// Where an upload's bytes are: a file on disk (a staged file, a download's content), or an object (of a tenant's
    /// store, or a download's content in the content store).
    package enum Source: Sendable {
        case file(path: String)
        case object(ObjectLocation)
    }

    /// The multipart framing around the file, with a fresh boundary (always of the same length); nil for a raw body.
    package var framing: MultipartFraming? {
        framing(contentType: contentType)
    }

    /// The framing, its file part of `contentType` (an object's own, known once the store was asked).
    func framing(contentType: String) -> MultipartFraming? {
        multipart.map { MultipartFraming(form: $0, filename: filename, fileContentType: contentType) }
    }

    package init(task: TransferTask, upload: UploadTransfer, files: FileStore, _ repositories: any Repositories) async throws {
        method = task.originalRequest.method
        multipart = upload.multipart
        replyLocation = files.contentStore?.replyLocation(sessionID: task.sessionId, taskIdentifier: task.taskIdentifier)
        if case .object(let location) = upload.from {
            source = .object(location)
            contentType = "application/octet-stream"
            let lastComponent = location.key.value.split(separator: "/").last.map(String.init) ?? ""
            filename = upload.multipart?.filename ?? (lastComponent.isEmpty ? "file" : lastComponent)
        } else if let fileID = upload.sourceFileId {
            let file = try await repositories.stagedFiles.find(id: fileID)
            source = file?.objects?.whole.map { .object($0.location) } ?? .file(path: files.stagedPath(fileID: fileID))
            contentType = file?.contentType ?? "application/octet-stream"
            filename = upload.multipart?.filename ?? file?.metadata?["filename"] ?? file?.publicId ?? "file"
        } else {
            let download = if let id = upload.sourceTaskId { try await repositories.tasks.find(id: id) } else { TransferTask?.none }
            let object = download?.transfer.download?.file?.object
            source = object.map { .object($0.location) } ?? .file(path: files.contentPath(taskID: upload.sourceTaskId ?? 0))
            contentType = download?.transfer.download?.file?.contentType ?? "application/octet-stream"
            let lastComponent = download.flatMap { URL(string: $0.originalRequest.url)?.lastPathComponent } ?? ""
            filename = upload.multipart?.filename ?? (lastComponent.isEmpty || lastComponent == "/" ? "file" : lastComponent)
        }
    }
}
