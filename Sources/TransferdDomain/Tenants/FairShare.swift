/// Slots (transfers, webhook senders) shared across tenants, so that one tenant's work cannot hold them all while
/// another's waits. While more than one tenant has work (waiting or under way), each is held to its own share where
/// the operator set one, else to `perTenant` (half the slots by default, at least one); free slots go round-robin, the tenant holding fewest first, each taking its
/// candidates in the order given. Slots no tenant under its share waits for may go to one over it, and are given
/// back (`preemptions`) once another tenant's work waits.
package struct FairShare: Sendable {
    package let capacity: Int
    /// The most slots one tenant holds while another has work; nil for half the capacity.
    package let perTenant: Int?
    /// Tenants held to a share of their own instead (`transferd tenants set --transfers`).
    package let shares: [Int64: Int]

    package init(capacity: Int, perTenant: Int? = nil, shares: [Int64: Int] = [:]) {
        self.capacity = capacity
        self.perTenant = perTenant
        self.shares = shares
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
        let working = Set(tenants).union(holding.filter { $0.value > 0 }.keys).count
        var held = holding
        // Fewest held first; among equals, the order of their first candidates (a stable sort keeps it).
        tenants = tenants.enumerated().sorted { (held[$0.element, default: 0], $0.offset) < (held[$1.element, default: 0], $1.offset) }
            .map(\.element)
        var picked: [Item] = []
        // Round-robin within the share, then over it for what no one else waits for.
        for withinShare in [true, false] {
            var progressed = true
            while free > 0, progressed {
                progressed = false
                for tenant in tenants
                where free > 0 && held[tenant, default: 0] < (withinShare ? limit(of: tenant, working: working) : capacity) {
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
        }
        return picked
    }

    /// How many slots each tenant over its share gives back, so that the tenants under it whose work waits (`waiting`
    /// counts it) can start: none while a slot is free, and no more than those tenants can use.
    package func preemptions(holding: [Int64: Int], waiting: [Int64: Int]) -> [Int64: Int] {
        guard capacity - holding.values.reduce(0, +) <= 0 else { return [:] }
        let working = Set(holding.filter { $0.value > 0 }.keys).union(waiting.filter { $0.value > 0 }.keys).count
        var needed = waiting.reduce(0) { $0 + max(0, min($1.value, limit(of: $1.key, working: working) - holding[$1.key, default: 0])) }
        var given: [Int64: Int] = [:]
        for (tenant, held) in holding.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) })
        where held > limit(of: tenant, working: working) && needed > 0 {
            let back = min(held - limit(of: tenant, working: working), needed)
            given[tenant] = back
            needed -= back
        }
        return given
    }

    /// The share `tenant` is held to while `working` tenants have work.
    private func limit(of tenant: Int64, working: Int) -> Int {
        working > 1 ? shares[tenant] ?? perTenant ?? max(1, capacity / 2) : capacity
    }
}
