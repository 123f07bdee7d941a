import Foundation
import TransferdDomain

/// Everything a runner needs to perform one attempt of a queued task, resolved when the scheduler claims it.
package struct TransferJob: Sendable {
    package let taskID: Int64
    package let url: String
    /// Session headers overlaid with the task's own (the task wins, names compared case-insensitively).
    package let headers: [(name: String, value: String)]
    /// `timeoutIntervalForRequest`: longest silence on an open transfer.
    package let requestTimeout: Duration
    /// The service's throughput floor; nil when it has none, or the task's own bandwidth limit is below it.
    package let minimumRate: TransferBounds.MinimumRate?
    /// Creation time plus `timeoutIntervalForResource`.
    package let resourceDeadline: Date
    package let checksum: Checksum?
    /// Whether a gzip-encoded response is decoded on the way to disk.
    package let decodeContent: Bool
    /// The bytes kept from earlier attempts and the validator they came with, when the transfer can continue.
    package let resumePoint: ResumePoint?
    /// How many parallel range requests may fetch the body.
    package let connections: Int
    /// What an upload sends; nil for a download.
    package let upload: UploadJob?
    /// The largest a download may be: its `maxBytes`, at most the service's limit.
    package let maxBytes: Int64
    /// What a download does with redirects: its own policy, else its session's.
    package let redirectPolicy: RedirectPolicy
    /// The session's proxy; nil to connect directly.
    package let proxy: ProxySetting?
    /// The credentials given for the task's protection spaces: an origin's goes with requests to its host and port,
    /// a proxy's with the requests through it.
    package let credentials: [SealedCredential]
    /// The task was claimed while a challenge still waited for its answer: the answer did not come in time.
    package let challengeUnanswered: Bool

    /// The headers a request to `url` carries: every one to the task's own origin, only the safe ones
    /// (`CrossOriginHeaders`) to another, where a redirect led.
    package func headers(for url: String) -> [(name: String, value: String)] {
        if (try? Destination(self.url))?.isSameOrigin(as: url) == true { return headers }
        return headers.filter { CrossOriginHeaders.forwards($0.name) }
    }

    /// Where a download continues: the partial file's checkpoint and the representation it belongs to.
    package struct ResumePoint: Sendable, Equatable {
        package let bytes: Int64
        package let validator: ResumeValidator
    }

    package init(task: TransferTask, configuration: SessionConfiguration, upload: UploadJob?, bounds: TransferBounds) {
        taskID = task.rowID
        url = task.originalRequest.url
        let taskHeaderNames = Set(task.originalRequest.headers.keys.map { $0.lowercased() })
        headers =
            configuration.httpAdditionalHeaders.filter { !taskHeaderNames.contains($0.key.lowercased()) }.map { ($0.key, $0.value) }
            + task.originalRequest.headers.map { ($0.key, $0.value) }
        requestTimeout = min(.milliseconds(Int64(configuration.timeoutIntervalForRequest * 1000)), bounds.maximumRequestTimeout)
        minimumRate = bounds.minimumRate.flatMap { floor in (task.maxBytesPerSecond ?? .max) < floor.bytesPerSecond ? nil : floor }
        resourceDeadline = task.createdAt.addingTimeInterval(configuration.timeoutIntervalForResource)
        checksum = task.checksum
        decodeContent = configuration.decodeContent
        resumePoint = task.resumeValidator.flatMap { task.partialBytes > 0 ? ResumePoint(bytes: task.partialBytes, validator: $0) : nil }
        connections = task.connections
        self.upload = upload
        maxBytes = min(task.maxBytes ?? bounds.maximumDownloadBytes, bounds.maximumDownloadBytes)
        redirectPolicy = task.redirectPolicy ?? configuration.redirectPolicy
        proxy = configuration.proxy
        credentials = task.credentials
        challengeUnanswered = task.challenge != nil
    }
}
