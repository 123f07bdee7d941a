import Logging

/// What the log lines of the work under way say about it: a transfer's task and session, a delivery's session and
/// message. It lives in a task-local that the loggers' metadata provider reads (the composition root adds
/// ``provider`` to every logger), so that a line written at any depth of the work carries it.
package enum LogContext {
    @TaskLocal private static var metadata: Logger.Metadata = [:]

    /// The current work's metadata, for every logger of the service.
    package static let provider = Logger.MetadataProvider { metadata }

    /// Runs `body` as work that `added` describes, on top of what the current work says.
    package static func with<T>(_ added: Logger.Metadata, _ body: () async throws -> T) async rethrows -> T {
        try await $metadata.withValue(metadata.merging(added) { $1 }, operation: body)
    }
}
