import Foundation

/// The progress of tasks' transfers, each written by the lease's owner: checkpoints, responses, and the stored
/// bytes reserved ahead of them.
package protocol TaskProgressRepository {
    /// The multipart upload a download into a bucket has just begun, recorded by the lease's `owner` before any part
    /// goes, so that whichever attempt comes next continues it (or the sweeper aborts it); false when the task is no
    /// longer the owner's.
    func recordObjectUpload(id: Int64, owner: String, objectUpload: ObjectUploadProgress) async throws -> Bool

    /// A checkpoint of a running download by the lease's `owner`, or of one being cancelled (its last checkpoint,
    /// which its resume data continues from); false when the task is neither or no longer the owner's. A download
    /// from several sources checkpoints the ranges it made durable past `partialBytes` (nil: none). A download
    /// into a bucket checkpoints its multipart upload with the bytes it holds, when a part was added (nil leaves the
    /// upload recorded as it is).
    func recordProgress(
        id: Int64,
        owner: String,
        received: Int64,
        expected: Int64,
        partialBytes: Int64,
        keptRanges: KeptRanges?,
        objectUpload: ObjectUploadProgress?
    ) async throws -> Bool
    /// The responses running tasks' transfers received, by the lease's `owner`, written together without reading the
    /// tasks first; returns the identifiers of the tasks written, by row id (one no longer running or the owner's is
    /// missing).
    func recordResponses(owner: String, _ responses: [(id: Int64, received: ReceivedResponse)]) async throws -> [Int64: Int64]
    /// The offset a task's stored bytes are reserved through: what it keeps and what it has reserved after that
    /// (counted in its tenant's stored bytes; ``StorageGrant``).
    func reservation(id: Int64) async throws -> Int64
    /// Reserves a running task's stored bytes through the offset `through`, for the lease's `owner` (a reservation only
    /// grows while the lease lasts, and goes with it); false when it is no longer running or the owner's.
    func reserve(id: Int64, owner: String, through: Int64) async throws -> Bool
    /// The counters of a running upload by the lease's `owner`; false when it is no longer running or the owner's.
    func recordUploadProgress(id: Int64, owner: String, sent: Int64, expected: Int64) async throws -> Bool
}
