import Synchronization

/// Sessions with a delivery in flight: at most one each, which is what keeps a session's deliveries in order.
package final class SendingSessions: Sendable {
    private let sessions = Mutex<Set<Int64>>([])

    package var all: [Int64] { sessions.withLock { Array($0) } }
    package var count: Int { sessions.withLock { $0.count } }
    package func insert(_ sessionID: Int64) { _ = sessions.withLock { $0.insert(sessionID) } }
    package func remove(_ sessionID: Int64) { _ = sessions.withLock { $0.remove(sessionID) } }
}
