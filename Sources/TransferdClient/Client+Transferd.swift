public import Foundation
import HTTPTypes
public import OpenAPIAsyncHTTPClient
import OpenAPIRuntime

extension Client {
    /// A client of the transferd at `serverURL` that sends `apiKey` as its bearer token (none for a service run
    /// with `--no-auth`), reading dates as the service writes them: ISO 8601 with milliseconds.
    public init(serverURL: URL, apiKey: String?, transport: AsyncHTTPClientTransport = AsyncHTTPClientTransport()) {
        self.init(
            serverURL: serverURL,
            configuration: Configuration(dateTranscoder: .iso8601WithFractionalSeconds),
            transport: transport,
            middlewares: apiKey.map { [BearerToken(key: $0)] } ?? []
        )
    }
}

/// Sends an API key as the `Authorization` bearer token of every request.
struct BearerToken: ClientMiddleware {
    let key: String

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(key)"
        return try await next(request, body, baseURL)
    }
}
