import AsyncHTTPClient
import Foundation
import Testing

/// `Tests/Interop/upload_receiver.py` in a child process: a destination for upload tasks that reads bodies and
/// multipart forms with Python's own parsers and says what arrived.
struct UploadReceiver: Sendable {
    /// One complete request as the receiver read it.
    struct Received: Decodable, Sendable {
        struct Part: Decodable, Sendable {
            var name: String?
            var filename: String?
            var contentType: String
            var size: Int
            var sha256: String
            var value: String?
        }

        var method: String
        var contentType: String
        var size: Int
        var sha256: String
        var parts: [Part]
    }

    let port: Int

    /// The URL of the upload named `name`, with the receiver's options as a query (`status=400&reply=…`).
    func url(_ name: String, _ query: String = "") -> String {
        "http://127.0.0.1:\(port)/upload/\(name)" + (query.isEmpty ? "" : "?\(query)")
    }

    static func with<T: Sendable>(_ body: (UploadReceiver) async throws -> T) async throws -> T {
        try await InteropScript.serving("upload_receiver.py", hint: "python3 is needed") { port in
            try await body(UploadReceiver(port: port))
        }
    }

    func received(_ name: String) async throws -> [Received] {
        let response = try await HTTPClient.shared.execute(
            HTTPClientRequest(url: "http://127.0.0.1:\(port)/received/\(name)"),
            timeout: .seconds(10)
        )
        return try JSONDecoder().decode([Received].self, from: Data(try await response.body.collect(upTo: 16 << 20).readableBytesView))
    }
}
