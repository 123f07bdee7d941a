import Foundation
import TransferdDomain

/// Keys of `Idempotency-Key`: a request claims its key, keeps its response once it has one, or gives the key up
/// when it failed. Keys live 24 hours.
package struct IdempotencyService: Sendable {
    package static let lifetime: TimeInterval = 86_400

    let store: any Store
    let clock: any WallClock

    package init(store: any Store, clock: any WallClock) {
        self.store = store
        self.clock = clock
    }

    /// What claiming a key found.
    package enum Claim: Sendable {
        /// The key is this request's now: handle it, then `keep` or `release`.
        case claimed
        /// The same request was answered before: replay this.
        case replay(IdempotencyRecord.Response)
        /// The first request with this key is still being handled.
        case inFlight
        /// The key was used with another request.
        case reusedWithOtherRequest
    }

    package func claim(_ key: String, tenantID: Int64, fingerprint: String) async throws -> Claim {
        let now = clock.now
        return try await store.write { repositories in
            try await repositories.idempotencyKeys.deleteCreated(
                before: now.addingTimeInterval(-Self.lifetime),
                tenantID: tenantID,
                key: key
            )
            guard let record = try await repositories.idempotencyKeys.find(tenantID: tenantID, key: key) else {
                try await repositories.idempotencyKeys.reserve(tenantID: tenantID, key: key, fingerprint: fingerprint, at: now)
                return .claimed
            }
            guard record.fingerprint == fingerprint else { return .reusedWithOtherRequest }
            return record.response.map(Claim.replay) ?? .inFlight
        }
    }

    package func keep(_ response: IdempotencyRecord.Response, key: String, tenantID: Int64) async throws {
        try await store.write { try await $0.idempotencyKeys.complete(tenantID: tenantID, key: key, response: response) }
    }

    package func release(_ key: String, tenantID: Int64) async throws {
        try await store.write { try await $0.idempotencyKeys.release(tenantID: tenantID, key: key) }
    }
}
