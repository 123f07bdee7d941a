import Hummingbird
import NIOCore
import Synchronization
import TransferdTestOrigins

/// A webhook subscriber that answers `200` at once and then never finishes its body: it trickles a space every 100
/// ms, so that only a deadline on the whole exchange ends it (a timeout between reads would not). Counts the
/// exchanges it holds and those the client cut.
final class TarpitSubscriber: Sendable {
    private struct State {
        var holding = 0
        var cut = 0
    }

    private let state = Mutex(State())
    let port: Int

    private init(port: Int) {
        self.port = port
    }

    var url: String { "http://127.0.0.1:\(port)/hook" }
    /// Exchanges under way now.
    var holding: Int { state.withLock { $0.holding } }
    /// Exchanges the client ended.
    var cut: Int { state.withLock { $0.cut } }

    private func trickle(_ writer: inout any ResponseBodyWriter) async throws {
        state.withLock { $0.holding += 1 }
        defer { state.withLock { ($0.holding, $0.cut) = ($0.holding - 1, $0.cut + 1) } }
        try await writer.write(ByteBuffer(string: "{"))
        while true {
            try await Task.sleep(for: .milliseconds(100))
            try await writer.write(ByteBuffer(string: " "))
        }
    }

    static func with<T: Sendable>(_ body: (TarpitSubscriber) async throws -> T) async throws -> T {
        let router = Router()
        let box = Mutex<TarpitSubscriber?>(nil)
        router.post("hook") { request, _ -> Response in
            _ = try await request.body.collect(upTo: 1 << 20)
            let tarpit = box.withLock { $0! }
            return Response(
                status: .ok,
                headers: [.contentType: "application/json"],
                body: ResponseBody { writer in try await tarpit.trickle(&writer) }
            )
        }
        return try await LoopbackServer.run(
            router,
            port: 0,
            make: { port in
                let tarpit = TarpitSubscriber(port: port)
                box.withLock { $0 = tarpit }
                return tarpit
            },
            body
        )
    }
}
