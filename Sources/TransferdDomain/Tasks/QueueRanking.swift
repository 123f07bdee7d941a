/// The order a claim takes one queue (a session's tasks to one origin) in: the tasks of active background tasks
/// first, which run ahead of their session's others whatever their place, then the queue's own order (priority,
/// highest first, then the oldest). The storage reads the queue; this decides its heads.
package struct QueueRanking: Sendable {
    /// The queue ranked.
    package let queue: HostQueue
    /// Its tasks of active background tasks, by priority (highest first), then the oldest.
    package let boosted: [TransferTask]

    /// The ranking of `queue`, of whose tasks those among `boosted` (every queue's, in any order) go first.
    package init(_ queue: HostQueue, boosted: [TransferTask]) {
        self.queue = queue
        self.boosted = boosted.filter { $0.sessionId == queue.sessionID && $0.origin == queue.origin }
            .sorted { ($0.priority, -$0.rowID) > ($1.priority, -$1.rowID) }
    }

    /// How many of the queue's tasks in its own order to read for `depth` heads: as many again as its boosted tasks,
    /// which the queue's order may hold too.
    package func pageLimit(depth: Int) -> Int { depth + boosted.count }

    /// The first `depth` heads: the boosted tasks, then the tasks of `page` (the queue's in its own order) that are not
    /// among them.
    package func heads(page: [TransferTask], depth: Int) -> [TransferTask] {
        let boostedIDs = Set(boosted.map(\.rowID))
        return Array((boosted + page.filter { !boostedIDs.contains($0.rowID) }).prefix(depth))
    }
}
