import AsyncHTTPClient
import NIOCore

/// How an `S3Client`'s requests reach the store. transferd sends a tenant's through its destination guard, which
/// vets the endpoint's address first; the service's own store and the tests use an `HTTPClient` directly.
public protocol S3Transport: Sendable {
    func execute(_ request: HTTPClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse
}

/// Requests sent as they are, through one `HTTPClient`.
public struct DirectS3Transport: S3Transport {
    public let client: HTTPClient

    public init(client: HTTPClient) {
        self.client = client
    }

    public func execute(_ request: HTTPClientRequest, deadline: NIODeadline) async throws -> HTTPClientResponse {
        try await client.execute(request, deadline: deadline)
    }
}
