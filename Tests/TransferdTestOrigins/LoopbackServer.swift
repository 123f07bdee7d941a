import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// Runs one of the tests' own servers (origins, webhook receivers) on 127.0.0.1 for the duration of `body`:
/// `port` 0 picks a free one, another reuses a known port. `make` builds the server object once the port is known.
///
/// The server stops gracefully: it stops accepting, hands every connection already accepted to a handler, and lets
/// the exchanges under way end. Only then, or after a second for a handler that never ends (a tarpit, a hung
/// origin), is it cancelled. Cancelling it straight away dropped connections still queued for acceptance, and NIO
/// traps on those (`Deinited NIOAsyncWriter without calling finish()`, apple/swift-nio#2637).
package enum LoopbackServer {
    package static func run<Server: Sendable, T: Sendable>(
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
        var configuration = ServiceGroupConfiguration(services: [app], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(1)
        let serviceGroup = ServiceGroup(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await serviceGroup.run() }
            var iterator = ports.makeAsyncIterator()
            let server = make(await iterator.next() ?? 0)
            let result: Result<T, any Error>
            do { result = .success(try await body(server)) } catch { result = .failure(error) }
            await serviceGroup.triggerGracefulShutdown()
            try? await group.waitForAll()
            return try result.get()
        }
    }
}
