import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

/// `Tests/Interop/standardwebhooks_receiver.py` in a child process: a subscriber that verifies deliveries with
/// the public `standardwebhooks` Python package (pip), so that signatures are checked by code nobody here wrote.
struct StandardWebhooksReceiver: Sendable {
    /// One delivery as the Python receiver saw it.
    struct Received: Decodable, Sendable {
        var id: String
        var type: String
        /// For each secret the receiver knew: did the delivery verify with it.
        var verified: [String: Bool]
    }

    let port: Int
    var url: String { "http://127.0.0.1:\(port)/hook" }

    /// Runs the receiver for the duration of `body`.
    static func with<T: Sendable>(_ body: (StandardWebhooksReceiver) async throws -> T) async throws -> T {
        try await InteropScript.serving("standardwebhooks_receiver.py", hint: "pip install standardwebhooks") { port in
            try await body(StandardWebhooksReceiver(port: port))
        }
    }

    func setSecrets(_ secrets: [String]) async throws {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/secrets")
        request.method = .PUT
        request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(secrets)))
        _ = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
    }

    func received() async throws -> [Received] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/received"),
            timeout: .seconds(10)
        )
        return try JSONDecoder().decode([Received].self, from: Data(try await response.body.collect(upTo: 16 << 20).readableBytesView))
    }
}
