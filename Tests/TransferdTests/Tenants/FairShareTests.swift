import Testing
import TransferdDomain

/// How free slots are shared across tenants: a table of who holds what, who waits, and who gets the slots.
@Suite struct FairShareTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let capacity: Int
        let perTenant: Int?
        /// Candidates as "tenant:item", in queue order.
        let candidates: [String]
        let holding: [Int64: Int]
        let picked: [String]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "alone, a tenant takes every slot",
            capacity: 4,
            perTenant: nil,
            candidates: ["1:a", "1:b", "1:c", "1:d", "1:e"],
            holding: [:],
            picked: ["a", "b", "c", "d"]
        ),
        Case(
            name: "two tenants take turns",
            capacity: 4,
            perTenant: nil,
            candidates: ["1:a", "1:b", "1:c", "2:x", "2:y"],
            holding: [:],
            picked: ["a", "x", "b", "y"]
        ),
        Case(
            name: "a tenant holding slots waits its turn",
            capacity: 4,
            perTenant: nil,
            candidates: ["1:a", "2:x", "2:y"],
            holding: [1: 1],
            picked: ["x", "a", "y"]
        ),
        Case(
            name: "none holds more than half while another works",
            capacity: 4,
            perTenant: nil,
            candidates: ["1:a", "1:b", "1:c"],
            holding: [2: 1],
            picked: ["a", "b"]
        ),
        Case(
            name: "the limit given replaces half",
            capacity: 6,
            perTenant: 1,
            candidates: ["1:a", "1:b", "2:x", "2:y", "3:p"],
            holding: [:],
            picked: ["a", "x", "p"]
        ),
        Case(
            name: "two slots, two tenants: one each",
            capacity: 2,
            perTenant: nil,
            candidates: ["1:a", "1:b", "2:x"],
            holding: [:],
            picked: ["a", "x"]
        ),
        Case(name: "one slot is shared by no one", capacity: 1, perTenant: nil, candidates: ["1:a", "2:x"], holding: [:], picked: ["a"]),
        Case(name: "no free slot, nothing picked", capacity: 2, perTenant: nil, candidates: ["1:a", "2:x"], holding: [3: 2], picked: []),
        Case(
            name: "a passed-over candidate yields the next",
            capacity: 3,
            perTenant: nil,
            candidates: ["1:skip", "1:b", "2:x"],
            holding: [:],
            picked: ["b", "x"]
        ),
    ]

    @Test(arguments: cases) func slotsAreShared(_ row: Case) {
        let candidates = row.candidates.map { text in
            let parts = text.split(separator: ":")
            return (tenant: Int64(parts[0])!, item: String(parts[1]))
        }
        let picked = FairShare(capacity: row.capacity, perTenant: row.perTenant).pick(candidates, holding: row.holding) { $0 != "skip" }
        #expect(picked == row.picked)
    }
}
