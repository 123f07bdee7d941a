import Logging
import Synchronization

/// What the log lines of a request say about it: its id and `traceparent`, then its tenant and session once known.
/// It lives in a task-local, and the loggers' metadata provider adds it when a line is written, so that a request
/// that logs nothing pays nothing for it (setting a logger's metadata formats all of it again at once).
package final class RequestLogScope: Sendable {
    @TaskLocal static var current: RequestLogScope?

    private let metadata: Mutex<Logger.Metadata>

    init(requestID: String, traceparent: String?) {
        var metadata: Logger.Metadata = ["request_id": .string(requestID)]
        if let traceparent { metadata["traceparent"] = .string(traceparent) }
        self.metadata = Mutex(metadata)
    }

    /// Adds (or, with nil, removes) one member.
    func set(_ key: String, _ value: String?) {
        metadata.withLock { $0[key] = value.map { .string($0) } }
    }

    /// The metadata of the current request, for every logger of the service.
    package static let metadataProvider = Logger.MetadataProvider { current?.metadata.withLock { $0 } ?? [:] }
}
