/// Slots (transfers, webhook senders) shared across tenants, so that one tenant's work cannot hold them all while
/// another's waits: while more than one tenant has work, none holds more than `perTenant` (half the slots by
/// default, at least one); alone, a tenant may hold them all. Free slots go round-robin, the tenant holding fewest
/// first, each taking its candidates in the order given.
package struct FairShare: Sendable {
    package let capacity: Int
    /// The most slots one tenant holds while another has work; nil for half the capacity.
    package let perTenant: Int?

    package init(capacity: Int, perTenant: Int? = nil) {
        self.capacity = capacity
        self.perTenant = perTenant
    }

    /// The candidates to give the free slots to, each accepted.
    package func pick<Item>(_ candidates: [(tenant: Int64, item: Item)], holding: [Int64: Int]) -> [Item] {
        pick(candidates, holding: holding) { _ in true }
    }

    /// The candidates to give the free slots to, in the order they were given them. `holding` counts the slots each
    /// tenant holds now; `accept` may pass over a candidate (a limit of its own is reached), and the tenant's next
    /// one is offered instead.
    package func pick<Item>(
        _ candidates: [(tenant: Int64, item: Item)],
        holding: [Int64: Int],
        accept: (Item) throws -> Bool
    ) rethrows -> [Item] {
        var free = capacity - holding.values.reduce(0, +)
        var queues: [Int64: ArraySlice<Item>] = [:]
        var tenants: [Int64] = []
        for candidate in candidates {
            if queues[candidate.tenant] == nil { tenants.append(candidate.tenant) }
            queues[candidate.tenant, default: []].append(candidate.item)
        }
        let working = Set(tenants).union(holding.filter { $0.value > 0 }.keys)
        let limit = working.count > 1 ? perTenant ?? max(1, capacity / 2) : capacity
        var held = holding
        // Fewest held first; among equals, the order of their first candidates (a stable sort keeps it).
        tenants = tenants.enumerated().sorted { (held[$0.element, default: 0], $0.offset) < (held[$1.element, default: 0], $1.offset) }
            .map(\.element)
        var picked: [Item] = []
        var progressed = true
        while free > 0, progressed {
            progressed = false
            for tenant in tenants where free > 0 && held[tenant, default: 0] < limit {
                while let item = queues[tenant]?.popFirst() {
                    guard try accept(item) else { continue }
                    picked.append(item)
                    held[tenant, default: 0] += 1
                    free -= 1
                    progressed = true
                    break
                }
            }
        }
        return picked
    }
}
