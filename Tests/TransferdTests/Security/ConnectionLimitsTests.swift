import Foundation
import Testing

@testable import transferd

/// No client holds a connection of the API for nothing: a head must arrive in full soon after its first byte, an
/// idle connection is closed, and past the cap further connections wait until one closes.
@Suite struct ConnectionLimitsTests {
    private func port(of api: APIClient) throws -> Int {
        try #require(URLComponents(string: api.baseURL)?.port)
    }

    @Test func aHeadThatNeverArrivesInFullIsCutOff() async throws {
        let limits = ConnectionLimits(headerTimeout: .seconds(1), idleTimeout: .seconds(600), maximumConnections: 64)
        try await TestService.with(configure: { $0.connections = limits }) { api in
            // setup: one client sends half a head and stops; another trickles a byte every 100 ms
            let stalled = try await RawConnection.open(port: try port(of: api))
            defer { stalled.close() }
            try await stalled.write("GET /v1/sessions HTTP/1.1\r\nHost: attacker\r\n")
            let trickling = try await RawConnection.open(port: try port(of: api))
            defer { trickling.close() }
            let trickle = Task {
                for byte in "GET /healthz HTTP/1.1\r\nX-Slow: " + String(repeating: "a", count: 6000) {
                    try await trickling.write(String(byte))
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            defer { trickle.cancel() }

            // act + verify: the server closes both without an answer, long before the idle timeout (10 minutes)
            #expect(try await stalled.readUntilClosed(timeout: .seconds(120)) == "")
            #expect(try await trickling.readUntilClosed(timeout: .seconds(120)) == "")
            #expect(try await api.send(.GET, "/healthz").status == 200, "whole requests are served as before")
        }
    }

    @Test func anIdleConnectionIsClosedAfterItsAnswer() async throws {
        let limits = ConnectionLimits(headerTimeout: .seconds(600), idleTimeout: .seconds(1), maximumConnections: 64)
        try await TestService.with(configure: { $0.connections = limits }) { api in
            // act: one request, sent as the connection opens (the idle clock runs from then), then nothing
            let connection = try await RawConnection.open(port: try port(of: api), sending: "GET /healthz HTTP/1.1\r\nHost: client\r\n\r\n")
            defer { connection.close() }

            // verify: answered, then closed by the server
            let received = try #require(try await connection.readUntilClosed(timeout: .seconds(120)))
            #expect(received.hasPrefix("HTTP/1.1 200 OK"), "\(received)")
        }
    }

    @Test func pastTheCapAConnectionWaitsUntilAnotherCloses() async throws {
        let limits = ConnectionLimits(headerTimeout: .seconds(600), idleTimeout: .seconds(600), maximumConnections: 2)
        try await TestService.with(configure: { $0.connections = limits }) { api in
            // setup: two connections held open, each answered once: the server has accepted and counts both (it
            // accepts a batch of waiting connections at a time, so one opened before then could slip in with them)
            let request = "GET /healthz HTTP/1.1\r\nHost: client\r\n\r\n"
            let held = [
                try await RawConnection.open(port: try port(of: api), sending: request),
                try await RawConnection.open(port: try port(of: api), sending: request),
            ]
            defer { held.forEach { $0.close() } }
            for connection in held { #expect(try await connection.readSomething(timeout: .seconds(60))?.hasPrefix("HTTP/1.1 200") == true) }
            let third = try await RawConnection.open(port: try port(of: api))
            defer { third.close() }
            try await third.write("GET /healthz HTTP/1.1\r\nHost: client\r\nConnection: close\r\n\r\n")

            // act + verify: no answer while two are open (the server cannot answer: it has not accepted it), one
            // once a held connection closes
            #expect(try await third.readUntilClosed(timeout: .seconds(2)) == nil)
            held[0].close()
            let answered = try #require(try await third.readUntilClosed(timeout: .seconds(120)))
            #expect(answered.hasPrefix("HTTP/1.1 200 OK"), "\(answered)")
        }
    }
}
