import Testing
import TransferdDomain

/// How slots are shared across tenants: tables of who holds what, who waits, and who gets or gives back slots.
@Suite struct FairShareTests {
    /// One row: "capacity[/perTenant] [tenant=share …]", candidates as "tenant:item" in queue order, holdings as "tenant:count", and
    /// the items picked.
    typealias Row = (name: String, share: String, candidates: String, holding: String, picked: String)

    static let picks: [Row] = [
        ("alone, a tenant takes every slot", "4", "1:a 1:b 1:c 1:d 1:e", "", "a b c d"),
        ("two tenants take turns", "4", "1:a 1:b 1:c 2:x 2:y", "", "a x b y"),
        ("a tenant holding slots waits its turn", "4", "1:a 2:x 2:y", "1:1", "x a y"),
        ("over the share only for what no one else waits for", "4", "1:a 1:b 1:c", "2:1", "a b c"),
        ("the limit given replaces half", "6/1", "1:a 1:b 2:x 2:y 3:p", "", "a x p b y"),
        ("two slots, two tenants: one each", "2", "1:a 1:b 2:x", "", "a x"),
        ("one slot", "1", "1:a 2:x", "", "a"),
        ("no free slot, nothing picked", "2", "1:a 2:x", "3:2", ""),
        ("a passed-over candidate yields the next", "3", "1:skip 1:b 2:x", "", "b x"),
        ("a tenant's own share replaces the service's", "6 2=2", "1:a 1:b 1:c 1:d 1:e 2:x 2:y 2:z 2:w", "", "a x b y c d"),
        ("a larger own share", "5 2=3", "1:a 1:b 1:c 2:x 2:y 2:z", "", "a x b y z"),
    ]

    static let preemptions: [Row] = [
        ("a free slot: nothing given back", "4", "2:1", "1:3", ""),
        ("the holder of every slot gives back what the other can use", "2", "2:5", "1:2", "1:1"),
        ("down to the share, no further", "8", "2:9", "1:8", "1:4"),
        ("only what the waiting tenant can use", "8", "2:1", "1:8", "1:1"),
        ("no one over the share", "4", "3:1", "1:2 2:2", ""),
        ("no one waits", "2", "", "1:2", ""),
        ("alone, a tenant keeps every slot", "2", "1:3", "1:2", ""),
        ("the largest holder gives back first", "6/2", "3:2", "1:3 2:3", "1:1 2:1"),
        ("down to a tenant's own share", "8 1=6", "2:9", "1:8", "1:2"),
        ("a waiting tenant's own share bounds what it takes back", "8 2=1", "2:9", "1:8", "1:1"),
    ]

    @Test(arguments: picks.map(\.name)) func freeSlotsAreShared(_ name: String) throws {
        let row = try #require(Self.picks.first { $0.name == name })
        let candidates = Self.pairs(row.candidates).map { (tenant: $0.0, item: $0.1) }
        let picked = Self.share(row.share).pick(candidates, holding: Self.counts(row.holding)) { $0 != "skip" }
        #expect(picked.joined(separator: " ") == row.picked)
    }

    @Test(arguments: preemptions.map(\.name)) func slotsOverTheShareAreGivenBack(_ name: String) throws {
        let row = try #require(Self.preemptions.first { $0.name == name })
        let given = Self.share(row.share).preemptions(holding: Self.counts(row.holding), waiting: Self.counts(row.candidates))
        #expect(given == Self.counts(row.picked))
    }

    private static func share(_ text: String) -> FairShare {
        let words = text.split(separator: " ")
        let parts = words[0].split(separator: "/").compactMap { Int($0) }
        let shares = words.dropFirst().map { $0.split(separator: "=") }.map { (Int64($0[0]) ?? 0, Int($0[1]) ?? 0) }
        return FairShare(capacity: parts[0], perTenant: parts.count > 1 ? parts[1] : nil, shares: Dictionary(uniqueKeysWithValues: shares))
    }

    private static func pairs(_ text: String) -> [(Int64, String)] {
        text.split(separator: " ").map { pair in
            let parts = pair.split(separator: ":")
            return (Int64(parts[0]) ?? 0, String(parts[1]))
        }
    }

    private static func counts(_ text: String) -> [Int64: Int] {
        Dictionary(uniqueKeysWithValues: pairs(text).map { ($0.0, Int($0.1) ?? 0) })
    }
}
