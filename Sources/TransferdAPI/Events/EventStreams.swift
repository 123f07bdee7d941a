import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization
import TransferdDomain

/// The live event streams (Server-Sent Events) this instance serves: how often an idle stream sends a heartbeat
/// comment, and how many streams one API key may hold open at once on this instance (429 beyond).
package final class EventStreams: Sendable {
    package let heartbeat: Duration
    package let maximumPerKey: Int
    private let open = Mutex<[String: Int]>([:])

    package init(heartbeat: Duration = .seconds(15), maximumPerKey: Int = 16) {
        self.heartbeat = heartbeat
        self.maximumPerKey = maximumPerKey
    }

    /// Counts a stream that `keyID` opens; refuses it when the key holds the most it may already.
    private func admit(keyID: String) throws(Problem) {
        let admitted = open.withLock { open in
            guard open[keyID, default: 0] < maximumPerKey else { return false }
            open[keyID, default: 0] += 1
            return true
        }
        guard admitted else {
            throw Problem(
                .tooManyStreams,
                detail: "This API key holds \(maximumPerKey) event streams open on this instance, the most it may; close one first."
            )
        }
    }

    /// One message of a stream: an event as the API shows it, the message's id, and where the stream goes on after it.
    struct Message<Cursor: Sendable>: Sendable {
        var id: String
        var event: EventsController.EventResponse
        var next: Cursor
    }

    /// A stream for the request of `context`, from `start`: each read returns the messages that came within the
    /// heartbeat (none: the heartbeat goes out instead). It ends when the service shuts down gracefully, the reading
    /// fails, or the request's credential no longer holds (its key revoked, its dashboard session ended: checked
    /// before a write once a heartbeat); a client that left is noticed at the next write.
    func response<Cursor: Sendable>(
        for context: AppRequestContext,
        from start: Cursor,
        read: @escaping @Sendable (Cursor, Duration) async throws -> [Message<Cursor>]
    ) throws(Problem) -> Response {
        let (keyID, credentialHolds) = (context.principal?.keyID ?? "", context.credentialHolds)
        try admit(keyID: keyID)
        let heartbeat = heartbeat
        return Response(
            status: .ok,
            headers: ServerSentEvents.headers,
            body: ResponseBody { [self] writer in
                defer { release(keyID: keyID) }
                var cursor = start
                var lastChecked = ContinuousClock.now
                while !Task.isShuttingDownGracefully, !Task.isCancelled {
                    let messages: [Message<Cursor>]
                    do {
                        // A wait that graceful shutdown cuts short returns what it has: nothing.
                        messages = try await cancelWhenGracefulShutdown { [cursor] in try await read(cursor, heartbeat) }
                    } catch {
                        break  // the store failed: the stream ends, and the client reconnects after the last id it has
                    }
                    // Once a heartbeat at most: a busy stream does not look its credential up for every batch.
                    if ContinuousClock.now - lastChecked >= heartbeat {
                        guard await credentialHolds() else { break }
                        lastChecked = .now
                    }
                    guard let last = messages.last else {
                        if !Task.isShuttingDownGracefully { try await writer.write(ServerSentEvents.heartbeat) }
                        continue
                    }
                    var buffer = ByteBuffer()
                    for message in messages {
                        try ServerSentEvents.append(id: message.id, event: message.event.type.rawValue, data: message.event, to: &buffer)
                    }
                    try await writer.write(buffer)
                    cursor = last.next
                }
                try await writer.finish(nil)
            }
        )
    }

    /// Forgets a stream that `keyID` opened and that has ended.
    private func release(keyID: String) {
        open.withLock { open in
            open[keyID, default: 1] -= 1
            if open[keyID] == 0 { open[keyID] = nil }
        }
    }
}
