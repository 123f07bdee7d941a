import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// An S3-compatible server that checks signatures (moto's, by `Tests/Interop/s3_server.py`), with a key allowed
/// everything. The test process shares one, started by the first test that asks (moto's start is seconds of CPU);
/// each test makes buckets of its own, and faults and request logs are per bucket.
package struct S3TestServer: Sendable {
    package let port: Int
    package let accessKeyId: String
    package let secretAccessKey: String

    package var endpoint: String { "http://127.0.0.1:\(port)" }

    /// A request the server received: `GET /bucket/key`, `partNumber=2&uploadId=…`.
    package struct Received: Decodable, Sendable {
        package let method: String
        package let path: String
        package let query: String
    }

    private struct Started: Decodable {
        let port: Int
        let accessKeyId: String
        let secretAccessKey: String
    }

    /// Starts the server once per test process; it ends with the process.
    private actor Launcher {
        private var started: Task<S3TestServer, any Error>?
        private var script: InteropScript?

        func server() async throws -> S3TestServer {
            if let started { return try await started.value }
            let task = Task { try await launch() }
            started = task
            return try await task.value
        }

        private func launch() async throws -> S3TestServer {
            let script = try InteropScript("s3_server.py")
            self.script = script
            var output = ""
            // The JSON line, once printed; what else the script writes (warnings) goes to the same pipe.
            var line: Substring? {
                output.split(separator: "\n").dropLast(output.hasSuffix("\n") ? 0 : 1).first { $0.hasPrefix("{") }
            }
            try await waitUntil(timeout: .seconds(90)) {
                output += String(decoding: ChildProcess.readAvailable(script.process.output), as: UTF8.self)
                return line != nil || !script.process.isRunning
            }
            let started = try #require(
                try? JSONDecoder().decode(Started.self, from: Data((line ?? "").utf8)),
                "s3_server.py did not start (pip install \"moto[server]\" boto3): \(output)"
            )
            return S3TestServer(port: started.port, accessKeyId: started.accessKeyId, secretAccessKey: started.secretAccessKey)
        }
    }

    private static let launcher = Launcher()

    /// The test process's server.
    package static func shared() async throws -> S3TestServer {
        try await launcher.server()
    }

    /// A new, empty bucket of the caller's own.
    package func makeBucket() async throws -> String {
        let name = "t-" + UUID().uuidString.lowercased().prefix(18)
        try await control(.POST, "_buckets?bucket=\(name)")
        return name
    }

    /// What a fault answers.
    package enum Fault: Sendable {
        /// 503 SlowDown, as a store under load.
        case slowDown
        /// 403 AccessDenied.
        case accessDenied
        /// Nothing, ever: the request is held until the server stops.
        case hang
    }

    /// The server answers the next `count` requests for `bucket` (those whose `METHOD path?query` contains `text`) with
    /// `fault`; rules are tried in the order they were added.
    package func injectFaults(_ count: Int, bucket: String, matching text: String = "", answer fault: Fault = .slowDown) async throws {
        let match = text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let answer =
            switch fault {
            case .slowDown: ""
            case .accessDenied: "&status=403"
            case .hang: "&hang=1"
            }
        try await control(.POST, "_faults?bucket=\(bucket)&count=\(count)&match=\(match)\(answer)")
    }

    /// Every request the server received for `bucket`, in order.
    package func received(bucket: String) async throws -> [Received] {
        try JSONDecoder().decode([Received].self, from: Data(try await control(.GET, "_requests?bucket=\(bucket)").readableBytesView))
    }

    @discardableResult
    private func control(_ method: HTTPMethod, _ pathAndQuery: String) async throws -> ByteBuffer {
        var request = HTTPClientRequest(url: "\(endpoint)/\(pathAndQuery)")
        request.method = method
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        try #require((200..<300).contains(response.status.code), "s3_server.py refused \(pathAndQuery): \(response.status)")
        return try await response.body.collect(upTo: 64 << 20)
    }
}
