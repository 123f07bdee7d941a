import Foundation

/// What a run of a fetch schedule gave, after UIBackgroundFetchResult.
package enum FetchResult: String, Codable, Sendable, CaseIterable {
    /// New content: a new version.
    case newData
    /// Nothing new: a `304 Not Modified`, or the same SHA-256 as the latest version.
    case noData
    /// The run failed, after its task's own retries (or it could not be created).
    case failed
}

/// A settled run of a fetch schedule: its result, its task (none when the task could not be created) and when.
package struct FetchRun: Codable, Sendable, Equatable {
    package var result: FetchResult
    package var taskIdentifier: Int64?
    package var performedAt: Date
    /// Why it failed, when it did.
    package var error: String?

    package init(result: FetchResult, taskIdentifier: Int64?, performedAt: Date, error: String? = nil) {
        (self.result, self.taskIdentifier, self.performedAt, self.error) = (result, taskIdentifier, performedAt, error)
    }
}

/// A version of a fetched resource: the run's task that keeps its content, its digest, and the validators the
/// origin sent with it.
package struct FetchVersion: Codable, Sendable, Equatable {
    package var taskIdentifier: Int64
    /// Lowercase hex SHA-256 of the content: the ETag `…/fetches/{id}/content` serves it with.
    package var sha256: String
    package var size: Int64
    /// The origin's `ETag`, as sent.
    package var etag: String?
    /// The origin's `Last-Modified`, as sent.
    package var lastModified: String?
    package var fetchedAt: Date

    package init(taskIdentifier: Int64, sha256: String, size: Int64, etag: String?, lastModified: String?, fetchedAt: Date) {
        (self.taskIdentifier, self.sha256, self.size, self.etag, self.lastModified, self.fetchedAt) =
            (taskIdentifier, sha256, size, etag, lastModified, fetchedAt)
    }
}
