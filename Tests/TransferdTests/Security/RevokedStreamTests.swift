import Foundation
import Testing

@testable import transferd

/// An open event stream ends once its credential no longer holds: a revoked key's, a signed-out dashboard's. The
/// credential is checked again before every write, heartbeats included.
@Suite struct RevokedStreamTests {
    static func withQuickHeartbeats<T: Sendable>(
        _ dataDirectory: String,
        _ body: (APIClient) async throws -> T
    ) async throws -> T {
        try await TestService.with(dataDirectory: dataDirectory, configure: { $0.streamHeartbeat = .milliseconds(200) }, body)
    }

    @Test func aRevokedKeysStreamIsClosed() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await Self.withQuickHeartbeats(dataDirectory) { api in
            // setup: a tenant's key holds its tenant's stream open
            let key = try await KeyManagement.create(dataDirectory: dataDirectory, name: "watcher", tenant: "default", admin: false)
            let stream = try EventStreamReader(APIClient(baseURL: api.baseURL, key: key), "/v1/events")
            defer { stream.close() }
            #expect(try await stream.status() == 200)

            // act: the key is revoked from the command line, where no signal reaches the service
            let id = try #require(try await KeyManagement.list(dataDirectory: dataDirectory).first { $0.name == "watcher" }?.id)
            #expect(try await KeyManagement.revoke(dataDirectory: dataDirectory, id: id))

            // verify: the server ends the stream (the key cache holds a key for a second at most)
            try await stream.waitForEnd(timeout: .seconds(60))
        }
    }

    @Test func aSignedOutDashboardsStreamIsClosed() async throws {
        try await Self.withQuickHeartbeats(DataDirectories.temporary()) { api in
            // setup: the dashboard's cookie holds a stream open, as its pages' EventSource does
            let browser = DashboardClient(api)
            let csrf = try await browser.signIn()
            let port = try #require(URLComponents(string: api.baseURL)?.port)
            let stream = try await RawConnection.open(port: port)
            defer { stream.close() }
            try await stream.write(
                "GET /v1/events HTTP/1.1\r\nHost: dashboard\r\nAccept: text/event-stream\r\nConnection: close\r\n"
                    + "Cookie: transferd_dashboard=\(try #require(browser.cookie))\r\n\r\n"
            )
            #expect(try await stream.readUntilClosed(timeout: .seconds(1)) == nil, "the stream is open")

            // act
            #expect(try await browser.post("/ui/sign-out", form: ["csrf": csrf]).status == 303)

            // verify: the stream was open and answered, and the server ended it
            let received = try #require(try await stream.readUntilClosed(timeout: .seconds(60)))
            #expect(received.hasPrefix("HTTP/1.1 200 OK") && received.contains("text/event-stream"), "\(received)")
        }
    }
}
