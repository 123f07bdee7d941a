import AsyncHTTPClient
import Foundation
import Logging
import NIOHTTP1
import Synchronization
import TransferdDomain

/// Times one request of a transfer as it happens, for its `TransactionMetrics`: the runner marks the phases it
/// sees (resolution, response head, end of body); the HTTP client's own debug messages, read through `logger`,
/// say whether the request waited for a new connection and which connection carried it.
final class RequestTimeline: Sendable {
    private let metrics: Mutex<TransactionMetrics>
    /// The serial of the client the request goes out with: connection ids are its pool's.
    private let client = Mutex<Int?>(nil)
    /// Connections already seen, by client and connection id: a request on one of them reused it.
    private static let seenConnections = Mutex(SeenConnections())

    /// Times are the machine's (`Date()`): they measure, they decide nothing.
    init(attempt: Int, url: String, method: String) {
        metrics = Mutex(TransactionMetrics(attempt: attempt, url: Redaction.url(url), method: method, fetchStartDate: Date()))
    }

    var transaction: TransactionMetrics {
        metrics.withLock { $0 }
    }

    /// The route the request takes: the resolution it needed, and the address it connects to.
    func routed(_ route: DestinationGuard.Route) {
        client.withLock { $0 = route.clientSerial }
        metrics.withLock { metrics in
            (metrics.domainLookupStartDate, metrics.domainLookupEndDate) = (route.lookup?.start, route.lookup?.end)
            (metrics.remoteAddress, metrics.remotePort, metrics.isProxyConnection) = (route.address, route.port, route.isProxy)
        }
    }

    /// A logger for the request, which hears the client's messages about its connection.
    func logger() -> Logger {
        Logger(label: "transferd.request") { _ in ConnectionMessages(timeline: self) }
    }

    /// The response head arrived.
    func responded(_ response: HTTPClientResponse) {
        let now = Date()
        metrics.withLock { metrics in
            metrics.statusCode = Int(response.status.code)
            metrics.responseStartDate = now
            metrics.networkProtocolName = response.version.major >= 2 ? "h2" : "http/\(response.version.major).\(response.version.minor)"
            if metrics.requestStartDate == nil { metrics.requestStartDate = now }
        }
    }

    /// The request's body went out.
    func sent(bodyBytes: Int64) {
        metrics.withLock { $0.countOfRequestBodyBytesSent = bodyBytes }
    }

    /// The response was a redirect that the transfer follows.
    func redirected() {
        metrics.withLock { $0.redirected = true }
    }

    /// The response's body ended after `bodyBytes`.
    func finished(bodyBytes: Int64) {
        let now = Date()
        metrics.withLock { metrics in
            metrics.countOfResponseBodyBytesReceived = bodyBytes
            metrics.responseEndDate = now
        }
    }

    fileprivate func waitedForConnection() {
        let now = Date()
        metrics.withLock { $0.connectStartDate = $0.connectStartDate ?? now }
    }

    fileprivate func sent(onConnection connection: String) {
        let now = Date()
        let key = "\(client.withLock { $0.map { "\($0)" } ?? "" })#\(connection)"
        let reused = Self.seenConnections.withLock { $0.insert(key) }
        metrics.withLock { metrics in
            metrics.requestStartDate = now
            metrics.isReusedConnection = reused
            guard !reused else { return (metrics.connectStartDate = nil) }
            metrics.connectStartDate = metrics.connectStartDate ?? metrics.domainLookupEndDate ?? metrics.fetchStartDate
            metrics.connectEndDate = now
            if metrics.url.lowercased().hasPrefix("https:") { metrics.secureConnectionEndDate = now }
        }
    }

    /// The connections requests went out on, the most recent few thousand.
    private struct SeenConnections {
        var order: [String] = []
        var members: Set<String> = []

        /// Notes `connection`; true when it was seen before.
        mutating func insert(_ connection: String) -> Bool {
            guard members.insert(connection).inserted else { return true }
            order.append(connection)
            if order.count > 4096 { members.remove(order.removeFirst()) }
            return false
        }
    }

    /// AsyncHTTPClient's debug messages for a request: it waits for a connection to be made; it is sent on a
    /// connection (its id in the metadata).
    private struct ConnectionMessages: LogHandler {
        let timeline: RequestTimeline
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            switch event.message.description {
            case "Request was queued (waiting for a connection to become available)":
                timeline.waitedForConnection()
            case "Request was scheduled on connection":
                timeline.sent(onConnection: (event.metadata?["ahc-connection-id"] ?? metadata["ahc-connection-id"]).map { "\($0)" } ?? "?")
            default:
                break
            }
        }
    }
}
