import Foundation
import Synchronization
import TransferdDomain

/// The API keys requests presented lately, so that a busy client is not looked up in the database on every request.
/// A key is read again once its entry is `lifetime` old: a key revoked where no signal reaches (the command line
/// beside SQLite) stops working within that time; one revoked through any instance stops at once. Only keys that exist are
/// kept, so the cache holds at most as many entries as there are keys.
package final class APIKeyCache: Sendable {
    package static let lifetime: TimeInterval = 1

    private let entries = Mutex<[String: (key: APIKey, readAt: Date)]>([:])

    package init() {}

    /// The key with `id` as it was read less than `lifetime` before `now`.
    package func key(id: String, now: Date) -> APIKey? {
        entries.withLock { entries in
            guard let entry = entries[id], now.timeIntervalSince(entry.readAt) < Self.lifetime, now >= entry.readAt else { return nil }
            return entry.key
        }
    }

    package func remember(_ key: APIKey, readAt now: Date) {
        entries.withLock { $0[key.id] = (key, now) }
    }

    package func forget(id: String) {
        entries.withLock { _ = $0.removeValue(forKey: id) }
    }
}
