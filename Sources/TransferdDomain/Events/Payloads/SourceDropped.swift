/// `task.source_dropped`: one of a download's sources (its URL or a mirror) was given up for the rest of the attempt,
/// and why; the other sources fetch what it left.
package struct SourceDropped: Codable, Sendable, Equatable {
    /// Why a source was given up.
    package enum Reason: String, Codable, Sendable, CaseIterable {
        /// Its request failed: the connection broke, or it answered with an error status.
        case failed
        /// It served a different size, or (without a checksum) a different validator, than the others.
        case differentContent
        /// Its bytes did not match the task's checksum where another source's did.
        case checksumMismatch
        /// It delivered less than a quarter of the fastest source's rate.
        case tooSlow
    }

    /// The source, credentials left out.
    package var url: String
    package var reason: Reason
    package var message: String

    package init(url: String, reason: Reason, message: String) {
        self.url = Redaction.url(url)
        self.reason = reason
        self.message = message
    }
}
