import Foundation
import Synchronization
import TransferdDomain

/// Sessions as a lookup by identifier found them, each kept for a few seconds, for the one route that needs no more
/// than a session's row id and configuration: creating tasks, whose statement writes only to a session that is still
/// active (a refusal looks the identifier up again). Creating one task at a time, the lookup was one of the
/// creation's two round trips to PostgreSQL.
final class KnownSessions: Sendable {
    private struct Key: Hashable {
        let tenantID: Int64
        let identifier: String
    }

    /// How long a session found is taken as it was: a configuration changed on another instance shows in the
    /// representations of new tasks after this at the latest.
    static let lifetime: TimeInterval = 5
    /// At most this many sessions are kept; past it, the oldest half goes.
    static let capacity = 10_000

    private let found = Mutex<[Key: (session: Session, at: Date)]>([:])

    /// The tenant's session with `identifier` as found at most ``lifetime`` before `now`.
    func session(identifier: String, tenantID: Int64, at now: Date) -> Session? {
        found.withLock { found in
            guard let known = found[Key(tenantID: tenantID, identifier: identifier)], now.timeIntervalSince(known.at) < Self.lifetime,
                known.at <= now
            else { return nil }
            return known.session
        }
    }

    /// Keeps `session` as found at `now`.
    func remember(_ session: Session, at now: Date) {
        found.withLock { found in
            if found.count >= Self.capacity {
                let oldest = found.sorted { $0.value.at < $1.value.at }.prefix(found.count / 2).map(\.key)
                for key in oldest { found[key] = nil }
            }
            found[Key(tenantID: session.tenantId, identifier: session.identifier)] = (session, now)
        }
    }
}
