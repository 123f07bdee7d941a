import Foundation
import Testing

/// A transferd event stream read by the public `httpx-sse` client (`Tests/Interop/sse_client.py`) in a child
/// process: the messages it parsed, as they arrive, and whether the server ended the stream.
final class EventStreamReader: Sendable {
    /// One Server-Sent Events message.
    struct Message: Decodable, Equatable {
        var id: String
        var event: String
        var data: String
    }

    private struct Line: Decodable {
        var status: Int?
        var end: Bool?
        var id: String?
        var event: String?
        var data: String?
    }

    private let script: InteropScript
    private let output = ProcessOutput()

    /// Opens `path` on `api` and reads at most `count` messages, from after `lastEventID` when given.
    init(_ api: APIClient, _ path: String, count: Int = 1000, lastEventID: String? = nil) throws {
        script = try InteropScript(
            "sse_client.py",
            arguments: [api.baseURL, api.key ?? "", path, String(count)] + (lastEventID.map { [$0] } ?? [])
        )
        script.process.gather(into: output)
    }

    /// The lines the client printed so far (one still being written is not yet a JSON object, and is left out).
    private var lines: [Line] {
        output.contents.split(separator: "\n").compactMap { try? JSONDecoder().decode(Line.self, from: Data($0.utf8)) }
    }

    /// The response's status, once the stream is open.
    func status() async throws -> Int {
        var status: Int?
        try await waitUntil(timeout: .seconds(30)) {
            status = lines.lazy.compactMap(\.status).first
            return status != nil || !script.process.isRunning
        }
        return try #require(status, "the SSE client did not connect")
    }

    /// The messages received so far.
    var messages: [Message] {
        lines.compactMap { line in line.id.map { Message(id: $0, event: line.event ?? "message", data: line.data ?? "") } }
    }

    /// Waits until `condition` holds for the messages received.
    func waitFor(timeout: Duration = .seconds(60), _ condition: @escaping ([Message]) -> Bool) async throws -> [Message] {
        try await waitUntil(timeout: timeout) { condition(self.messages) }
        return messages
    }

    /// Waits until the server has ended the stream.
    func waitForEnd(timeout: Duration = .seconds(30)) async throws {
        try await waitUntil(timeout: timeout) { self.lines.contains { $0.end == true } }
    }

    /// Stops the client: its connection closes.
    func close() {
        script.process.send(SIGTERM)
    }
}
