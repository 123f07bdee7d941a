import Foundation
import NIOPosix
import TransferdDomain

/// Where transferred bytes live on disk. Paths derive from internal row ids only, never from client input.
///
/// A download streams into `tasks/<id>.part`; on success it is flushed and renamed to `tasks/<id>` in one step,
/// so a finished file is never half-written and a failing transfer never touches a finished one. An upload's
/// reply body is kept in `tasks/<id>.reply`; staged files live in `files/<id>`.
///
/// With a content store (`--content-store`), downloads' content and uploads' replies go to its bucket instead: new
/// tasks are bound to their objects there, and what was kept here before stays here.
package struct FileStore: Sendable {
    package let root: String
    package let stagedRoot: String
    /// The bucket that takes new tasks' content and replies; nil keeps them in the data directory.
    package let contentStore: ContentStoreSettings?
    private let rootSync: DirectorySync

    package init(dataDirectory: String, contentStore: ContentStoreSettings? = nil) throws {
        self.contentStore = contentStore
        root = dataDirectory + "/tasks"
        stagedRoot = dataDirectory + "/files"
        rootSync = DirectorySync(path: root)
        for directory in [root, stagedRoot] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
    }

    package func replyPath(taskID: Int64) -> String {
        "\(root)/\(taskID).reply"
    }

    package func stagedPath(fileID: Int64) -> String {
        "\(stagedRoot)/\(fileID)"
    }

    package func partialPath(taskID: Int64) -> String {
        "\(root)/\(taskID).part"
    }

    package func contentPath(taskID: Int64) -> String {
        "\(root)/\(taskID)"
    }

    /// The partial file's length, 0 when there is none. One `stat`: Foundation's `attributesOfItem` also looks up
    /// the owner's and group's names, and fails when they cannot be had.
    package func partialSize(taskID: Int64) -> Int64 {
        var status = stat()
        guard stat(partialPath(taskID: taskID), &status) == 0 else { return 0 }
        return Int64(status.st_size)
    }

    /// Takes the partial file of a task for one attempt; nil while another attempt holds it (see `PartialFileLock`).
    /// On NIO's thread pool: creating the file waits for the disk (and for ext4 to find a free inode, slow after many
    /// deletions), which must not hold an event loop.
    package func lockPartial(taskID: Int64) async throws -> PartialFileLock? {
        let path = partialPath(taskID: taskID)
        return try await NIOThreadPool.singleton.runIfActive { try PartialFileLock.take(path: path) }
    }

    /// Gives another task (resume data) the partial file as well, as a second name of the same file: the source's
    /// name stays until it is removed, so a transaction that runs again can hand it over again. False when it is gone.
    package func sharePartial(from source: Int64, to destination: Int64) -> Bool {
        link(partialPath(taskID: source), partialPath(taskID: destination)) == 0
    }

    /// Atomically publishes a fully written partial file as the task's content, as a second name of the same file,
    /// and makes the name durable (syncs of the tasks' directory are shared by the publications that wait for one),
    /// replacing whatever an earlier publication left whose end never committed. The partial file's name stays until
    /// `removePartial` after the end commits: were it not to commit (a crash), the task's next attempt still finds
    /// its checkpointed bytes and publishes again.
    ///
    /// Done by the attempt that holds the partial file's lock, before its end is written: no transaction waits for
    /// the disk. On NIO's thread pool, as the disk must not hold an event loop.
    package func publish(taskID: Int64) async throws {
        let (partial, content) = (partialPath(taskID: taskID), contentPath(taskID: taskID))
        let staging = "\(root)/\(taskID).publishing"
        try await NIOThreadPool.singleton.runIfActive {
            unlink(staging)
            // A rename onto a name of the same file (published by an earlier run) leaves both names: the unlink goes.
            defer { unlink(staging) }
            guard link(partial, staging) == 0, rename(staging, content) == 0 else {
                throw TransferError(code: .cannotWriteToFile, message: "Could not move the finished download into place (errno \(errno)).")
            }
        }
        try await rootSync.sync()
    }

    package func removePartial(taskID: Int64) {
        unlink(partialPath(taskID: taskID))
    }

    package func removeContent(taskID: Int64) {
        unlink(contentPath(taskID: taskID))
    }

    package func removeReply(taskID: Int64) {
        unlink(replyPath(taskID: taskID))
    }

    package func removeStaged(fileID: Int64) {
        unlink(stagedPath(fileID: fileID))
    }
}
