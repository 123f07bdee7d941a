import TransferdDomain

/// The final response of a download's attempt (didReceiveResponse), kept on its transfer until a write records it:
/// the attempt's next checkpoint or its end, whichever comes first, records it in the same transaction, before its own
/// writes. A small download so costs one write at its end instead of two.
package struct ArrivedResponse: Sendable {
    /// The URL that answered.
    package let url: String
    package let response: TransferResponse
    /// Where a successful download's bytes go, and whether they can be continued; nil for any other response.
    package let start: AttemptStart?

    package init(url: String, response: TransferResponse, start: AttemptStart?) {
        (self.url, self.response, self.start) = (url, response, start)
    }
}
