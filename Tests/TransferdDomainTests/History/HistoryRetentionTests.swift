import Foundation
import Testing
import TransferdDomain

/// A session keeps its history for the longer of its content retention and its history retention (its own, or the
/// service's).
@Suite struct HistoryRetentionTests {
    static let retention = HistoryRetention(defaultPeriod: 3_000)

    static func session(retentionPeriod: Double, historyRetention: Double?) -> HistorySession {
        HistorySession(id: 1, tenantID: 1, retentionPeriod: retentionPeriod, historyRetention: historyRetention)
    }

    @Test(
        arguments: [
            (100.0, nil, 3_000.0),  // the service's
            (100.0, 500.0, 500.0),  // its own
            (9_000.0, nil, 9_000.0),  // content kept longer than the service's history
            (9_000.0, 500.0, 9_000.0),  // content kept longer than its own
        ] as [(Double, Double?, Double)]
    )
    func keepsForTheLongerOfTheTwo(retentionPeriod: Double, historyRetention: Double?, period: Double) {
        let session = Self.session(retentionPeriod: retentionPeriod, historyRetention: historyRetention)
        #expect(Self.retention.period(of: session) == period)
        let now = Date(timeIntervalSince1970: 100_000)
        #expect(Self.retention.keptSince(session, at: now) == now.addingTimeInterval(-period))
    }
}
