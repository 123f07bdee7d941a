import Logging
import TransferdDomain
import TransferdEngine
import TransferdS3
import TransferdStorage

/// What the service keeps for its clients, wherever it is kept: a download's content, an upload's reply body and a
/// staged file, in the data directory or in the content store's bucket. An object a download made in a tenant's own
/// store is the tenant's, and is never removed here.
package struct KeptContent: Sendable {
    let files: FileStore
    let objects: ObjectStores
    let logger: Logger

    package init(files: FileStore, objects: ObjectStores, logger: Logger) {
        (self.files, self.objects, self.logger) = (files, objects, logger)
    }

    /// Removes the download's content of `task` as it was before its row forgot it.
    package func removeContent(of task: TransferTask) async {
        guard let object = task.transfer.download?.file?.object else { return files.removeContent(taskID: task.rowID) }
        if object.location.isContentStore { await remove(object.location) }
    }

    /// Removes the upload's reply body of `task` as it was before its row forgot it.
    package func removeReply(of task: TransferTask) async {
        guard let object = task.transfer.upload?.reply?.object else { return files.removeReply(taskID: task.rowID) }
        await remove(object)
    }

    /// Removes the bytes of a staged file whose row is gone.
    package func removeStaged(_ file: StagedFile) async {
        guard let objects = file.objects else { return files.removeStaged(fileID: file.rowID) }
        for object in objects.all { await remove(object.location) }
    }

    /// An object the store cannot remove now stays, with a warning: no row names it any more.
    package func remove(_ location: ObjectLocation) async {
        do {
            try await objects.client(tenantID: 0, storage: location.storage).delete(location.key.value)
        } catch {
            logger.warning(
                "an object of the content store could not be removed",
                metadata: ["key": "\(location.key)", "error": "\(error)"]
            )
        }
    }
}
