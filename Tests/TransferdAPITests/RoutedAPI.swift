import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import TransferdTestSupport

@testable import transferd

/// The API as its router serves it, over the real services on SQLite in a new data directory, built and run by the
/// composition root as in production; only the socket is missing: requests go straight through the router
/// (HummingbirdTesting's router mode).
struct RoutedAPI: Sendable {
    /// One answer, fully read.
    struct Reply: Sendable {
        let status: Int
        let headers: HTTPFields
        let body: Data

        var text: String { String(decoding: body, as: UTF8.self) }
        /// The RFC 9457 problem the body holds, if it holds one.
        var problem: Problem? { try? JSONDecoder().decode(Problem.self, from: body) }

        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    }

    /// What these tests read of a problem.
    struct Problem: Decodable, Sendable {
        let status: Int
        let detail: String
    }

    static let apiKey = "trd_00000000000000aa_" + String(repeating: "cd", count: 32)

    private let client: any TestClientProtocol

    /// Runs `body` with the API of a new service.
    static func with<T: Sendable>(_ body: @Sendable (RoutedAPI) async throws -> T) async throws -> T {
        let configuration = Configuration(dataDirectory: DataDirectories.temporary(), logLevel: .critical, apiKey: apiKey)
        let app = try await buildApplication(configuration: configuration)
        return try await app.test(.router) { client in try await body(RoutedAPI(client: client)) }
    }

    /// Sends one request with the API key; `json` goes as `application/json`.
    func send(
        _ method: HTTPRequest.Method,
        _ path: String,
        json: String? = nil,
        headers: [(String, String)] = [],
        body: String? = nil
    ) async throws -> Reply {
        var fields = HTTPFields()
        fields[.authorization] = "Bearer \(Self.apiKey)"
        if json != nil { fields[.contentType] = "application/json" }
        for (name, value) in headers {
            fields.append(HTTPField(name: try #require(HTTPField.Name(name)), value: value))
        }
        let response = try await client.execute(
            uri: path,
            method: method,
            headers: fields,
            body: (json ?? body).map { ByteBuffer(string: $0) }
        )
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(response.body.readableBytesView))
    }

    /// Creates the session `identifier` with the default configuration.
    func createSession(_ identifier: String) async throws {
        let reply = try await send(.put, "/v1/sessions/\(identifier)", json: "{}")
        guard (200..<300).contains(reply.status) else { throw Refused(reply: reply.text) }
    }

    /// How many events the session's log holds.
    func eventCount(_ identifier: String) async throws -> Int {
        struct Page: Decodable {
            struct Item: Decodable {}
            let items: [Item]
        }
        return try JSONDecoder().decode(Page.self, from: try await send(.get, "/v1/sessions/\(identifier)/events").body).items.count
    }

    struct Refused: Error {
        let reply: String
    }
}
