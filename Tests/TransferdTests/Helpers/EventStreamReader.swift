import Foundation
import Synchronization
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
    private let lines = Mutex<[Line]>([])
    private let partial = Mutex(Data())

    /// Opens `path` on `api` and reads at most `count` messages, from after `lastEventID` when given.
    init(_ api: APIClient, _ path: String, count: Int = 1000, lastEventID: String? = nil) throws {
        script = try InteropScript(
            "sse_client.py",
            arguments: [api.baseURL, api.key ?? "", path, String(count)] + (lastEventID.map { [$0] } ?? [])
        )
        script.process.output.readabilityHandler = { [weak self] handle in self?.take(handle.availableData) }
    }

    /// Keeps the complete lines of what the client printed.
    private func take(_ data: Data) {
        let complete = partial.withLock { buffer -> [Data] in
            buffer.append(data)
            var found: [Data] = []
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                found.append(buffer[buffer.startIndex..<newline])
                buffer = Data(buffer[(newline + 1)...])
            }
            return found
        }
        let parsed = complete.compactMap { try? JSONDecoder().decode(Line.self, from: $0) }
        lines.withLock { $0 += parsed }
    }

    /// The response's status, once the stream is open.
    func status() async throws -> Int {
        var status: Int?
        try await waitUntil(timeout: .seconds(30)) {
            status = lines.withLock { $0.lazy.compactMap(\.status).first }
            return status != nil || !script.process.isRunning
        }
        return try #require(status, "the SSE client did not connect")
    }

    /// The messages received so far.
    var messages: [Message] {
        lines.withLock { $0.compactMap { line in line.id.map { Message(id: $0, event: line.event ?? "message", data: line.data ?? "") } } }
    }

    /// Waits until `condition` holds for the messages received.
    func waitFor(timeout: Duration = .seconds(60), _ condition: @escaping ([Message]) -> Bool) async throws -> [Message] {
        try await waitUntil(timeout: timeout) { condition(self.messages) }
        return messages
    }

    /// Waits until the server has ended the stream.
    func waitForEnd(timeout: Duration = .seconds(30)) async throws {
        try await waitUntil(timeout: timeout) { self.lines.withLock { $0.contains { $0.end == true } } }
    }

    /// Stops the client: its connection closes.
    func close() {
        script.process.send(SIGTERM)
    }
}
