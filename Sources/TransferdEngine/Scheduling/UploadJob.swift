import Foundation
import TransferdDomain
import TransferdStorage

/// What an upload attempt sends and how, resolved from the task's ``UploadTransfer`` and its source when the scheduler
/// claims it.
package struct UploadJob: Sendable {
    package let method: String
    /// The file on disk whose bytes are sent.
    package let sourcePath: String
    package let contentType: String
    /// The file name a multipart part carries.
    package let filename: String
    package let multipart: MultipartForm?

    /// The multipart framing around the file, with a fresh boundary (always of the same length); nil for a raw body.
    package var framing: MultipartFraming? {
        multipart.map { MultipartFraming(form: $0, filename: filename, fileContentType: contentType) }
    }

    package init(task: TransferTask, upload: UploadTransfer, files: FileStore, _ repositories: any Repositories) async throws {
        method = task.originalRequest.method
        multipart = upload.multipart
        if let fileID = upload.sourceFileId {
            let file = try await repositories.stagedFiles.find(id: fileID)
            sourcePath = files.stagedPath(fileID: fileID)
            contentType = file?.contentType ?? "application/octet-stream"
            filename = upload.multipart?.filename ?? file?.metadata?["filename"] ?? file?.publicId ?? "file"
        } else {
            let source = if let id = upload.sourceTaskId { try await repositories.tasks.find(id: id) } else { TransferTask?.none }
            sourcePath = files.contentPath(taskID: upload.sourceTaskId ?? 0)
            contentType = source?.transfer.download?.file?.contentType ?? "application/octet-stream"
            let lastComponent = source.flatMap { URL(string: $0.originalRequest.url)?.lastPathComponent } ?? ""
            filename = upload.multipart?.filename ?? (lastComponent.isEmpty || lastComponent == "/" ? "file" : lastComponent)
        }
    }
}
