import Hummingbird
import HummingbirdCore
import Logging

/// Runs one of the tests' own servers (origins, webhook receivers) on 127.0.0.1 for the duration of `body`:
/// `port` 0 picks a free one, another reuses a known port. `make` builds the server object once the port is known.
enum LoopbackServer {
    static func run<Server: Sendable, T: Sendable>(
        _ router: Router<BasicRequestContext>,
        port: Int,
        server: HTTPServerBuilder = .http1(),
        make: (Int) -> Server,
        _ body: (Server) async throws -> T
    ) async throws -> T {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "loopback")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = ports.makeAsyncIterator()
            let server = make(await iterator.next() ?? 0)
            defer { group.cancelAll() }
            return try await body(server)
        }
    }
}
