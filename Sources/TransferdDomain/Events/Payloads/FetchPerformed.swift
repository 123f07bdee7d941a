/// `fetch.performed`, after UIBackgroundFetchResult: a run of a fetch schedule was settled. `etag` and `sha256` are
/// the latest version's once the run is judged (the new one for `newData`); `taskIdentifier` is the run's task,
/// absent when it could not be created.
package struct FetchPerformed: Codable, Sendable, Equatable {
    package var fetchId: String
    package var result: FetchResult
    package var taskIdentifier: Int64?
    package var etag: String?
    package var sha256: String?

    package init(fetchId: String, result: FetchResult, taskIdentifier: Int64?, latest: FetchVersion?) {
        (self.fetchId, self.result, self.taskIdentifier) = (fetchId, result, taskIdentifier)
        (etag, sha256) = (latest?.etag, latest?.sha256)
    }
}
