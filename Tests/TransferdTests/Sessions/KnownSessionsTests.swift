import Foundation
import Testing
import TransferdDomain

@testable import TransferdServices

/// A session found by its identifier is taken as it was for `KnownSessions.lifetime`, by the tenant that found it,
/// and the oldest half goes when too many are kept.
@Suite struct KnownSessionsTests {
    private let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aSessionIsKnownForItsLifetimeAndToItsTenantOnly() {
        let known = KnownSessions()
        known.remember(Self.session("s", tenant: 1, row: 7), at: start)

        #expect(known.session(identifier: "s", tenantID: 1, at: start + KnownSessions.lifetime - 0.001)?.rowID == 7)
        #expect(known.session(identifier: "s", tenantID: 1, at: start + KnownSessions.lifetime) == nil)
        #expect(known.session(identifier: "s", tenantID: 2, at: start) == nil)
        #expect(known.session(identifier: "t", tenantID: 1, at: start) == nil)
    }

    @Test func pastItsCapacityTheOldestHalfGoes() {
        let known = KnownSessions()
        for number in 0..<KnownSessions.capacity {
            known.remember(Self.session("s\(number)", tenant: 1, row: Int64(number)), at: start + Double(number) / 1_000_000)
        }

        // act: one more
        known.remember(Self.session("new", tenant: 1, row: -1), at: start + 1)

        // verify
        let now = start + 1
        #expect(known.session(identifier: "s0", tenantID: 1, at: now) == nil)
        #expect(known.session(identifier: "s\(KnownSessions.capacity / 2 - 1)", tenantID: 1, at: now) == nil)
        #expect(known.session(identifier: "s\(KnownSessions.capacity / 2)", tenantID: 1, at: now) != nil)
        #expect(known.session(identifier: "new", tenantID: 1, at: now)?.rowID == -1)
    }

    private static func session(_ identifier: String, tenant: Int64, row: Int64) -> Session {
        var session = Session(identifier: identifier, tenantId: tenant, configuration: .default, createdAt: Date())
        session.id = row
        return session
    }
}
