import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import OpenAPIRuntime
import TransferdClient

/// A live stream of events (Server-Sent Events, read by OpenAPIRuntime's decoder) that reconnects after a dropped
/// connection or a restart of the service, with `Last-Event-ID`, so that no event is missed.
struct EventStream: Sendable {
    /// One message: the event's id (its sequence, or the tenant's cursor) and its JSON.
    struct Message: Sendable {
        var id: String?
        var data: String

        /// The event the message carries.
        func event() throws(CommandFailure) -> SessionEvent {
            do {
                return try APIJSON.decoder.decode(SessionEvent.self, from: Data(data.utf8))
            } catch {
                throw .unexpectedAnswer("an event stream message was not an event (\(error))")
            }
        }
    }

    let client: APIConnection
    /// The stream's path and query.
    let path: String
    /// How long the service may stay out of reach before following gives up.
    var patience: Duration = .seconds(120)

    /// Calls `handle` with each message after `lastEventID` (from the path's start when nil) until it returns
    /// false. A refusal (a problem) ends following at once; so does a first connection that fails.
    func follow(after lastEventID: String? = nil, _ handle: (Message) async throws -> Bool) async throws {
        var lastID = lastEventID
        var connected = false
        var outOfReachSince: ContinuousClock.Instant?
        while !Task.isCancelled {
            var request = try client.request(.GET, path)
            request.headers.add(name: "Accept", value: "text/event-stream")
            if let lastID { request.headers.add(name: "Last-Event-ID", value: lastID) }
            do {
                let response = try await client.open(request)
                (connected, outOfReachSince) = (true, nil)
                let messages = response.body.map { ArraySlice($0.readableBytesView) }.asDecodedServerSentEvents()
                for try await message in messages {
                    guard let data = message.data, !data.isEmpty else { continue }
                    if let id = message.id { lastID = id }
                    guard try await handle(Message(id: message.id, data: data)) else { return }
                }
                // The service ended the stream (a graceful shutdown): reconnect after the last id.
            } catch let failure as CommandFailure {
                guard case .unreachable = failure, connected else { throw failure }
                let since = outOfReachSince ?? .now
                guard ContinuousClock.now - since < patience else { throw failure }
                outOfReachSince = since
            } catch {
                // The connection broke mid-stream: reconnect after the last id.
                guard connected else { throw CommandFailure(reaching: client.baseURL, error) }
            }
            try await Task.sleep(for: .milliseconds(500))
        }
    }
}
