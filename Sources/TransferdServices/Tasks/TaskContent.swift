import Logging
import TransferdDomain
import TransferdEngine
import TransferdS3
import TransferdStorage

/// Where a task's kept bytes are: a download's content and an upload's reply body, in the data directory or in a
/// bucket (the content store's, or the tenant's store it names).
package struct TaskContent: Sendable {
    let files: FileStore
    let objects: ObjectStores

    package init(files: FileStore, objects: ObjectStores) {
        self.files = files
        self.objects = objects
    }

    /// Where the content `file` of the download `task` is.
    package func content(of task: TransferTask, _ file: StoredFile, tenantID: Int64, logger: Logger) async throws -> StoredBytes {
        guard let object = file.object else { return .file(path: files.contentPath(taskID: task.rowID)) }
        return .object(try await client(of: object.location, tenantID: tenantID, logger: logger), key: object.key, etag: object.etag)
    }

    /// Where the kept `reply` of the upload `task` is.
    package func reply(of task: TransferTask, _ reply: StoredReply, tenantID: Int64, logger: Logger) async throws -> StoredBytes {
        guard let object = reply.object else { return .file(path: files.replyPath(taskID: task.rowID)) }
        return .object(try await client(of: object, tenantID: tenantID, logger: logger), key: object.key.value, etag: nil)
    }

    /// A URL that reads `object` for `expires` seconds, outside the service, with `responseHeaders` as the store's
    /// answer's headers.
    package func presignedURL(
        of object: StoredObject,
        tenantID: Int64,
        expires: Int,
        responseHeaders: [(name: String, value: String)],
        logger: Logger
    ) async throws -> String {
        let client = try await client(of: object.location, tenantID: tenantID, presigning: true, logger: logger)
        return client.presignedURL(object.key, expires: expires, responseHeaders: responseHeaders)
    }

    /// The client of the store that holds `location` (the content store, or the tenant's store it names), or with
    /// `presigning` the one that signs URLs of it for clients outside.
    private func client(of location: ObjectLocation, tenantID: Int64, presigning: Bool = false, logger: Logger) async throws -> S3Client {
        do {
            return
                try await presigning
                ? objects.presigning(tenantID: tenantID, storage: location.storage)
                : objects.client(tenantID: tenantID, storage: location.storage)
        } catch let error as TransferError where error.code == .objectStorageRefused {
            throw DomainError.conflict(presigning ? error.message : "\(error.message) The content cannot be read from it.")
        } catch {
            logger.warning("no client for an object's store", metadata: ["error": "\(error)"])
            throw DomainError.objectStorageUnreachable
        }
    }
}
