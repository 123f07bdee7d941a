/// Where an attempt's body goes in the partial file, read from its response: after the bytes kept from earlier
/// attempts (a `206` that continues them) or from byte 0, and whether the bytes it brings can be continued later.
struct AttemptStart: Sendable {
    /// Why an attempt that meant to continue the partial file starts again from byte 0.
    enum RestartReason: String, Codable, Sendable {
        /// The origin answered the range request with the whole resource (`200`).
        case rangeIgnored
        /// The resource changed since the partial bytes arrived (`If-Range` did not match).
        case validatorChanged
        /// The origin refused the range (`416`): the resource shrank.
        case rangeNotSatisfiable
        /// The partial file is shorter than its checkpoint or gone.
        case partialFileMissing
    }

    /// Bytes of the partial file kept; the body is written after them.
    var offset: Int64
    /// The size of the whole resource, -1 when unknown (or decoded on the way).
    var expectedBytes: Int64
    /// Whether the origin answered with a range (`206`), proving it honours them.
    var rangeHonoured: Bool
    /// Whether the attempt meant to continue a partial file (didResumeAtOffset is reported then).
    var triedToResume: Bool
    var restartReason: RestartReason?
    /// The validator that lets a later attempt continue these bytes, or why none can.
    var resumability: Result<ResumeValidator, ResumeValidator.NotResumableReason>

    /// Reads a successful response to a request made with `resumePoint` (nil when no range was asked).
    init(_ response: TransferResponse, resumePoint: TransferJob.ResumePoint?, restartReason: RestartReason?, decoded: Bool) throws {
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
struct ContentRange: Equatable {
    var first: Int64
    var last: Int64
    var completeLength: Int64?

    init?(_ header: String) {
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
