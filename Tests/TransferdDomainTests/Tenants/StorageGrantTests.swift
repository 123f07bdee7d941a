import Testing
import TransferdDomain

/// How far a transfer may write against its tenant's quota of stored bytes: one row per case, with the offset granted
/// or the bytes the breach says were asked for.
@Suite struct StorageGrantTests {
    typealias Row = (
        name: String, held: Int64, needed: Int64, wanted: Int64, limit: Int64?, used: Int64, granted: Int64?, requested: Int64?
    )

    static let grants: [Row] = [
        ("no quota: all that is wanted", 0, 100, 8_000, nil, 5_000_000, 8_000, nil),
        ("a declared length that fits", 0, 2_000, 2_000, 10_000, 0, 2_000, nil),
        ("a declared length that fills the quota exactly", 0, 10_000, 10_000, 10_000, 0, 10_000, nil),
        ("one byte too many", 0, 10_001, 10_001, 10_000, 0, nil, 10_001),
        ("others' reservations count", 0, 2_000, 2_000, 10_000, 9_000, nil, 2_000),
        ("its own reservation is counted in used, and kept", 4_000, 6_000, 6_000, 10_000, 8_000, 6_000, nil),
        ("a batch ahead, cut to what is left", 1_000, 1_500, 9_000, 10_000, 6_000, 5_000, nil),
        ("a batch ahead, whole when it fits", 1_000, 1_500, 9_000, 100_000, 6_000, 9_000, nil),
        ("nothing needed past what it holds", 5_000, 4_000, 9_000, 10_000, 20_000, 5_000, nil),
        ("over the quota already: refused", 1_000, 1_001, 9_000, 10_000, 12_000, nil, 1),
        ("wanted below needed: needed", 0, 3_000, 1_000, 10_000, 0, 3_000, nil),
    ]

    @Test(arguments: grants) func grant(_ row: Row) {
        let result = StorageGrant.decide(held: row.held, needed: row.needed, wanted: row.wanted, limit: row.limit, used: row.used)
        switch result {
        case .through(let through):
            #expect(through == row.granted, "\(row.name)")
            #expect(row.requested == nil, "\(row.name)")
        case .refused(let breach):
            #expect(row.granted == nil, "\(row.name)")
            #expect(breach.requested == row.requested, "\(row.name)")
            #expect(breach.quota == .storedBytes && breach.limit == row.limit && breach.used == row.used, "\(row.name)")
        }
    }

    static let overdrafts: [(name: String, limit: Int64?, used: Int64, overdrawn: Bool)] = [
        ("no quota", nil, 1 << 40, false),
        ("below", 10_000, 9_999, false),
        ("exactly at the quota (a reservation that fills it)", 10_000, 10_000, false),
        ("past it (the quota was lowered)", 10_000, 10_001, true),
    ]

    @Test(arguments: overdrafts) func overdraft(_ row: (name: String, limit: Int64?, used: Int64, overdrawn: Bool)) {
        #expect((StorageGrant.overdrawn(limit: row.limit, used: row.used) != nil) == row.overdrawn, "\(row.name)")
    }
}
