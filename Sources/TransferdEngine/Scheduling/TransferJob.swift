import Foundation
import TransferdDomain

/// Everything a runner needs to perform one attempt of a queued task, resolved when the scheduler claims it.
package struct TransferJob: Sendable {
    package let taskID: Int64
    package let url: String
    /// A download's other sources of the same content, fetched beside `url`.
    package let mirrors: [String]
    /// Every URL a download may fetch from: `url` first, then its mirrors.
    package let sources: [String]
    /// Session headers overlaid with the task's own (the task wins, names compared case-insensitively).
    package let headers: [(name: String, value: String)]
    /// `timeoutIntervalForRequest`: longest silence on an open transfer.
    package let requestTimeout: Duration
    /// The service's throughput floor; nil when it has none, or the task's own bandwidth limit is below it.
    package let minimumRate: TransferBounds.MinimumRate?
    /// Creation time plus `timeoutIntervalForResource`.
    package let resourceDeadline: Date
    /// The session's proxy; nil to connect directly.
    package let proxy: ProxySetting?
    /// The credentials given for the task's protection spaces: an origin's goes with requests to its host and port,
    /// a proxy's with the requests through it.
    package let credentials: [SealedCredential]
    /// The task was claimed while a challenge still waited for its answer: the answer did not come in time.
    package let challengeUnanswered: Bool
    /// What the task's kind does, which picks its runner.
    package let work: Work
    /// The trace the attempt continues (``TransferTask/traceparent``).
    package let traceparent: String?
    /// The session's bandwidth schedule, which its transfers share.
    package let sessionBandwidth: BandwidthSchedule?

    /// A kind's own part of a job.
    package enum Work: Sendable {
        case download(DownloadJob)
        case upload(UploadJob)
    }

    /// The task's kind, as its work says.
    package var kind: TransferTask.Kind {
        switch work {
        case .download: .download
        case .upload: .upload
        }
    }

    /// Whether its requests carry a validator (`If-None-Match`, `If-Modified-Since`): a `304` answers them.
    package var isConditional: Bool {
        headers.contains { ["if-none-match", "if-modified-since"].contains($0.name.lowercased()) }
    }

    /// The headers a request to `url` carries: every one to the task's own origin, only the safe ones
    /// (`CrossOriginHeaders`) to another, where a redirect led.
    package func headers(for url: String) -> [(name: String, value: String)] {
        if (try? Destination(self.url))?.isSameOrigin(as: url) == true { return headers }
        return headers.filter { CrossOriginHeaders.forwards($0.name) }
    }

    package init(task: TransferTask, configuration: SessionConfiguration, work: Work, bounds: TransferBounds) {
        taskID = task.rowID
        url = task.originalRequest.url
        mirrors = task.originalRequest.mirrors ?? []
        sources = task.originalRequest.sources
        let taskHeaderNames = Set(task.originalRequest.headers.keys.map { $0.lowercased() })
        headers =
            configuration.httpAdditionalHeaders.filter { !taskHeaderNames.contains($0.key.lowercased()) }.map { ($0.key, $0.value) }
            + task.originalRequest.headers.map { ($0.key, $0.value) }
        requestTimeout = min(.milliseconds(Int64(configuration.timeoutIntervalForRequest * 1000)), bounds.maximumRequestTimeout)
        minimumRate = bounds.minimumRate.flatMap { floor in (task.maxBytesPerSecond ?? .max) < floor.bytesPerSecond ? nil : floor }
        resourceDeadline = task.createdAt.addingTimeInterval(configuration.timeoutIntervalForResource)
        proxy = configuration.proxy
        credentials = task.credentials
        challengeUnanswered = task.challenge != nil
        traceparent = task.traceparent
        sessionBandwidth = configuration.bandwidth
        self.work = work
    }
}
