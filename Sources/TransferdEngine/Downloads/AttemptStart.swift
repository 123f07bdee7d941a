import TransferdDomain

/// Where an attempt's body goes in the partial file, read from its response: after the bytes kept from earlier
/// attempts (a `206` that continues them) or from byte 0, and whether the bytes it brings can be continued later.
package struct AttemptStart: Sendable {
    /// Bytes of the partial file kept; the body is written after them.
    package var offset: Int64
    /// The size of the whole resource, -1 when unknown (or decoded on the way).
    package var expectedBytes: Int64
    /// Whether the origin answered with a range (`206`), proving it honours them.
    package var rangeHonoured: Bool
    /// Whether the attempt meant to continue a partial file (didResumeAtOffset is reported then).
    package var triedToResume: Bool
    package var restartReason: RestartReason?
    /// Whether the body continues the resume point's representation, so that its kept ranges past `offset` stay.
    package var continuesKept = false
    /// The validator that lets a later attempt continue these bytes, or why none can.
    package var resumability: Result<ResumeValidator, ResumeValidator.NotResumableReason>

    /// Reads a successful response to a request made with `resumePoint` (nil when no range was asked).
    package init(_ response: TransferResponse, resumePoint: DownloadJob.ResumePoint?, restartReason: RestartReason?, decoded: Bool) throws {
        let headers = response.headers
        resumability = ResumeValidator.of(headers: headers, statusCode: response.statusCode, decoded: decoded)
        triedToResume = resumePoint != nil || restartReason != nil
        rangeHonoured = response.statusCode == 206
        let contentLength = headers["content-length"].flatMap { Int64($0) } ?? -1
        if let resumePoint, rangeHonoured {
            guard let range = ContentRange(headers["content-range"] ?? ""), range.first == resumePoint.bytes else {
                throw TransferError(
                    code: .badServerResponse,
                    message: "The server answered a range request from byte \(resumePoint.bytes) with another range.",
                    statusCode: 206
                )
            }
            offset = resumePoint.bytes
            expectedBytes = range.completeLength ?? -1
            self.restartReason = nil
            continuesKept = true
        } else {
            offset = 0
            expectedBytes = contentLength
            let newValidator = try? resumability.get()
            self.restartReason = restartReason ?? resumePoint.map { $0.validator == newValidator ? .rangeIgnored : .validatorChanged }
        }
        if decoded { expectedBytes = -1 }
    }
}

/// The `Content-Range` of a `206`: `bytes first-last/complete` (complete may be `*`).
package struct ContentRange: Equatable {
    package var first: Int64
    package var last: Int64
    package var completeLength: Int64?

    package init?(_ header: String) {
        guard header.hasPrefix("bytes ") else { return nil }
        let parts = header.dropFirst(6).split(separator: "/", maxSplits: 1)
        let bounds = parts.first?.split(separator: "-", maxSplits: 1) ?? []
        guard parts.count == 2, bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
            return nil
        }
        self.first = first
        self.last = last
        completeLength = Int64(parts[1])
    }
}
