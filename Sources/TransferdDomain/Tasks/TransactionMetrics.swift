import Foundation

/// One request of a transfer, as NSURLSessionTaskTransactionMetrics describes it: when each phase began and ended,
/// what crossed the wire, and over what connection.
///
/// Times are what transferd observes of its HTTP client: `domainLookup…` are its own resolution of the host (absent
/// for an address, or through a proxy that resolves it); `connect…` span a new connection from the moment the
/// request waited for one until it was sent on it, TLS included (`secureConnectionEndDate` ends with it; its start,
/// inside AsyncHTTPClient, is not observable, so there is no `secureConnectionStartDate`); a reused connection has
/// neither.
package struct TransactionMetrics: Codable, Sendable, Equatable {
    /// The attempt the request belongs to, from 1.
    package var attempt: Int
    package var url: String
    package var method: String
    package var statusCode: Int?
    package var fetchStartDate: Date
    package var domainLookupStartDate: Date?
    package var domainLookupEndDate: Date?
    package var connectStartDate: Date?
    package var connectEndDate: Date?
    package var secureConnectionEndDate: Date?
    package var requestStartDate: Date?
    package var responseStartDate: Date?
    package var responseEndDate: Date?
    package var countOfRequestBodyBytesSent: Int64
    package var countOfResponseBodyBytesReceived: Int64
    package var remoteAddress: String?
    package var remotePort: Int?
    /// ALPN's name for the protocol: `http/1.1` or `h2`.
    package var networkProtocolName: String?
    /// Whether the request went out on a connection an earlier request had used; nil where the HTTP client does
    /// not tell (HTTP/2).
    package var isReusedConnection: Bool?
    package var isProxyConnection: Bool
    /// Whether the response was a redirect that the transfer followed.
    package var redirected: Bool

    package init(attempt: Int, url: String, method: String, fetchStartDate: Date) {
        self.attempt = attempt
        self.url = url
        self.method = method
        self.fetchStartDate = fetchStartDate
        countOfRequestBodyBytesSent = 0
        countOfResponseBodyBytesReceived = 0
        isProxyConnection = false
        redirected = false
    }
}
