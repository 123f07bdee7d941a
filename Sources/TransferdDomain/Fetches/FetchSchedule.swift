import Foundation

/// A recurring conditional download of a session, after Background Fetch: every `interval` the service fetches the
/// URL as a download task that sends the last kept version's validators, and judges what came back (`newData`,
/// `noData`, `failed`).
package struct FetchSchedule: Sendable, Equatable, Persisted {
    /// Internal row id.
    package var id: Int64?
    /// The `{id}` of `…/fetches/{id}`.
    package var publicId: String
    package var sessionId: Int64
    /// What each run asks: the URL and the client's headers (never a validator: the service adds those).
    package var request: TransferRequest
    /// `host:port` of the URL, as a task's `origin`.
    package var origin: String
    /// Where each run's content goes: kept by the service, or an object of one of the tenant's stores.
    package var destination: DownloadDestination
    package var taskDescription: String?
    /// When runs fall due.
    package var timing: FetchTiming
    /// How many versions with new data keep their content; older ones are pruned.
    package var keepVersions: Int
    /// Whether it is paused, and the run under way.
    package var phase: FetchScheduleStateMachine.Phase
    /// Runs fall on `anchorAt + n × interval`: creation, or the last change of the interval.
    package var anchorAt: Date
    /// When the next run is due (missed runs are one run).
    package var nextRunAt: Date
    /// What the last settled run gave.
    package var lastRun: FetchRun?
    /// The newest version with new data: what the next run's validators and SHA-256 comparison come from.
    package var latest: FetchVersion?
    package var createdAt: Date

    package init(
        publicId: String,
        sessionId: Int64,
        request: TransferRequest,
        origin: String,
        destination: DownloadDestination,
        taskDescription: String?,
        timing: FetchTiming,
        keepVersions: Int,
        createdAt: Date,
        nextRunAt: Date
    ) {
        (self.publicId, self.sessionId, self.request, self.origin) = (publicId, sessionId, request, origin)
        (self.destination, self.taskDescription, self.timing, self.keepVersions) = (destination, taskDescription, timing, keepVersions)
        (self.createdAt, self.anchorAt, self.nextRunAt) = (createdAt, createdAt, nextRunAt)
        phase = FetchScheduleStateMachine.Phase(paused: false, runningTask: nil)
    }

    /// The headers that make a run conditional on the latest version: `If-None-Match` with its ETag and
    /// `If-Modified-Since` with its `Last-Modified`, as the origin sent them.
    package var conditionalHeaders: [String: String] {
        var headers: [String: String] = [:]
        if let etag = latest?.etag { headers["If-None-Match"] = etag }
        if let lastModified = latest?.lastModified { headers["If-Modified-Since"] = lastModified }
        return headers
    }

    /// Headers the service sets on every run: a client may not give them.
    package static let reservedHeaders: Set<String> = ["if-none-match", "if-modified-since", "if-match", "if-unmodified-since"]
}
