/// How far a transfer may write, as its tenant's quota of stored bytes allows. A transfer reserves what it will
/// store before it writes it, and its reservation counts in its tenant's stored bytes beside what every task keeps,
/// so that transfers running at once cannot together pass the quota. A reservation is named by the offset it covers
/// (`through`): the bytes the task keeps and those it has reserved after them.
package enum StorageGrant: Sendable, Equatable {
    /// The transfer may write up to this offset.
    case through(Int64)
    /// Not even what it needs fits.
    case refused(QuotaBreach)

    /// The offset a transfer that holds `held` may write through when it needs `needed` and would take `wanted` (a
    /// batch ahead, for a body whose length is not known), for a tenant with `limit` that keeps `used` (every
    /// reservation counted, the transfer's own among them): as far as `wanted` when the quota leaves room, at least
    /// `needed`, or the breach when even that does not fit. No limit grants `wanted`.
    package static func decide(held: Int64, needed: Int64, wanted: Int64, limit: Int64?, used: Int64) -> StorageGrant {
        let wanted = max(wanted, needed)
        guard let limit else { return .through(max(held, wanted)) }
        guard needed > held else { return .through(held) }
        let reach = held + max(0, limit - used)
        guard reach >= needed else {
            return .refused(QuotaBreach(quota: .storedBytes, limit: limit, used: used, requested: needed - held))
        }
        return .through(min(wanted, reach))
    }

    /// The breach of a tenant that keeps more than its quota (the quota was lowered below what it keeps and has
    /// reserved): its transfers stop at their next checkpoint. Nil while it keeps no more than its quota.
    package static func overdrawn(limit: Int64?, used: Int64) -> QuotaBreach? {
        guard let limit, used > limit else { return nil }
        return QuotaBreach(quota: .storedBytes, limit: limit, used: used, requested: 0)
    }
}
