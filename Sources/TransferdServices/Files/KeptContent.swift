import Logging
import TransferdDomain
import TransferdEngine
import TransferdS3
import TransferdStorage

/// What a task keeps for its client, wherever it is kept: a download's content and an upload's reply body, in the
/// data directory or in the content store's bucket. An object a download made in a tenant's own store is the
/// tenant's, and is never removed here.
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
        if object.location.isContentStore { await remove(object.location, of: task) }
    }

    /// Removes the upload's reply body of `task` as it was before its row forgot it.
    package func removeReply(of task: TransferTask) async {
        guard let object = task.transfer.upload?.reply?.object else { return files.removeReply(taskID: task.rowID) }
        await remove(object, of: task)
    }

    /// An object the store cannot remove now stays, with a warning: its row no longer names it.
    private func remove(_ location: ObjectLocation, of task: TransferTask) async {
        do {
            try await objects.client(tenantID: 0, storage: location.storage).delete(location.key.value)
        } catch {
            logger.warning(
                "an object of the content store could not be removed",
                metadata: ["task": "\(task.rowID)", "key": "\(location.key)", "error": "\(error)"]
            )
        }
    }
}
