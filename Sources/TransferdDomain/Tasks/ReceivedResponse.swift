/// What a transfer's task records of a response's head (didReceiveResponse): where the request ended up, the
/// response, and, for a download's body, where it starts in the partial file.
package struct ReceivedResponse: Sendable {
    /// Where a download's body starts, and whether its bytes can be continued later.
    package struct Start: Sendable {
        /// Bytes of the partial file kept from earlier attempts; the body is written after them.
        package var offset: Int64
        /// The size of the whole resource, -1 when unknown.
        package var expectedBytes: Int64
        /// The validator that lets a later attempt continue these bytes, or why none can.
        package var resumability: Result<ResumeValidator, ResumeValidator.NotResumableReason>
        /// Whether the body continues the earlier attempts' representation, so that their kept ranges past `offset`
        /// stay; they are forgotten otherwise.
        package var continuesKept: Bool

        package init(
            offset: Int64,
            expectedBytes: Int64,
            resumability: Result<ResumeValidator, ResumeValidator.NotResumableReason>,
            continuesKept: Bool = false
        ) {
            (self.offset, self.expectedBytes, self.resumability, self.continuesKept) = (offset, expectedBytes, resumability, continuesKept)
        }
    }

    /// The URL that answered, its password masked.
    package var currentUrl: String
    package var response: TransferResponse
    package var start: Start?

    package init(currentUrl: String, response: TransferResponse, start: Start?) {
        (self.currentUrl, self.response, self.start) = (currentUrl, response, start)
    }
}

extension TransferTask {
    /// didReceiveResponse: the task shows the response and the URL that gave it; one that starts a body also sets
    /// where the body starts and whether its bytes can be continued (the columns `recordResponses` writes).
    package mutating func record(_ received: ReceivedResponse) {
        currentUrl = received.currentUrl
        response = received.response
        guard let start = received.start else { return }
        (countOfBytesReceived, countOfBytesExpected) = (start.offset, start.expectedBytes)
        transfer.updateDownload { download in
            download.partialBytes = start.offset
            if !start.continuesKept { download.keptRanges = nil }
            switch start.resumability {
            case .success(let validator): (download.resumeValidator, download.notResumableReason) = (validator, nil)
            case .failure(let reason): (download.resumeValidator, download.notResumableReason) = (nil, reason)
            }
        }
    }
}
