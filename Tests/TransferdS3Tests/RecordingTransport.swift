import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import Synchronization
import TransferdS3

/// Sends requests through an `HTTPClient` and keeps what each one was (method, URL, headers), for a test to compare
/// with another signer's view of it.
final class RecordingTransport: S3Transport {
    struct Sent: Sendable {
        let method: String
        let url: String
        let headers: [(name: String, value: String)]
    }

    private let client: HTTPClient
    private let recorded = Mutex<[Sent]>([])

    init(client: HTTPClient) {
        self.client = client
    }

    var sent: [Sent] { recorded.withLock { $0 } }

    func execute(_ request: HTTPClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
        recorded.withLock {
            $0.append(Sent(method: request.method.rawValue, url: request.url, headers: request.headers.map { ($0.name, $0.value) }))
        }
        return try await client.execute(request, deadline: deadline)
    }
}
