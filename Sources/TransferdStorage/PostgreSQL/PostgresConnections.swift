import Logging
import NIOPosix
import PostgresNIO
import Synchronization

/// The store's connections to PostgreSQL, each lent to one transaction at a time on one of the store's threads; a
/// connection is opened when none is free, and one that broke (in use, or idle while the server restarted) is
/// dropped rather than lent again.
final class PostgresConnections: Sendable {
    private let location: PostgresLocation
    private let logger: Logger
    private let idle = Mutex<[PostgresConnection]>([])
    private let opened = Atomic<Int>(0)

    init(location: PostgresLocation, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    /// A free connection, or a new one; waits for the connection to open. A database that cannot be reached is
    /// `StoreError.unavailable`.
    func acquire() throws -> PostgresConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            if !connection.isClosed { return connection }
        }
        do {
            let id = opened.add(1, ordering: .relaxed).newValue
            return try PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(),
                configuration: location.configuration,
                id: id,
                logger: logger
            ).wait()
        } catch {
            throw StoreError.unavailable(String(reflecting: error))
        }
    }

    /// Takes the connection back; a closed one is dropped.
    func release(_ connection: PostgresConnection) {
        guard !connection.isClosed else { return }
        idle.withLock { $0.append(connection) }
    }

    /// Closes the free connections without waiting: after one was found broken, the others are likely broken too
    /// (the server restarted), and a fresh connection costs less than a statement that never gets an answer.
    func dropIdle() {
        for connection in idle.withLock({ connections in
            defer { connections = [] }; return connections
        }) {
            // Held until closed: a connection must not go away while it is still open.
            let closed: EventLoopFuture<Void> = connection.close()
            closed.whenComplete { _ in withExtendedLifetime(connection) {} }
        }
    }

    /// Closes every free connection.
    func closeAll() async {
        for connection in idle.withLock({ connections in
            defer { connections = [] }; return connections
        }) {
            try? await connection.close()
        }
    }
}
