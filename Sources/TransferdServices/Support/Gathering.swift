import Synchronization

/// Items submitted while a run is under way wait for it, and the next run takes them all: one run at a time, and
/// nobody waits for a batch to fill. A group commit without the transaction (``GroupCommit``), for writes that
/// need none.
package final class Gathering<Item: Sendable, Outcome: Sendable>: Sendable {
    private enum Turn: Sendable {
        case done(Outcome)
        /// Run the item with those of `followers`.
        case lead(followers: [Waiting])
    }

    private struct Waiting: Sendable {
        let item: Item
        let continuation: CheckedContinuation<Turn, Never>
    }

    /// Led while a run is under way.
    private let line = Mutex(LeaderLine<Waiting>())

    package init() {}

    /// How many items wait for the run under way to end.
    package var waiting: Int {
        line.withLock { $0.waiting.count }
    }

    /// Runs `item` with `run` at once when no run is under way, or else with the items that wait for that run to
    /// end; returns its outcome. `run` returns one outcome for each item, in order; it runs in a task of its own, so
    /// that the others' items do not fail because the caller that leads was cancelled.
    package func submit(_ item: Item, _ run: @escaping @Sendable ([Item]) async -> [Outcome]) async -> Outcome {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            if line.withLock({ $0.enter(Waiting(item: item, continuation: continuation)) }) {
                continuation.resume(returning: .lead(followers: []))
            }
        }
        switch turn {
        case .done(let outcome):
            return outcome
        case .lead(let followers):
            let items = [item] + followers.map(\.item)
            let outcomes = await Task { await run(items) }.value
            for (follower, outcome) in zip(followers, outcomes.dropFirst()) { follower.continuation.resume(returning: .done(outcome)) }
            handOn()
            return outcomes[0]
        }
    }

    /// The first item in line leads the next run with every other; with none in line, no run is under way.
    private func handOn() {
        let next = line.withLock { line -> [Waiting] in
            defer { line.waiting = [] }
            if line.waiting.isEmpty { line.isLed = false }
            return line.waiting
        }
        guard let leader = next.first else { return }
        leader.continuation.resume(returning: .lead(followers: Array(next.dropFirst())))
    }
}
