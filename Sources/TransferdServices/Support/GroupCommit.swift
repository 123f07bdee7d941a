import Synchronization
import TransferdDomain

/// Group commit: writes that callers submit while a transaction is being written go together into the next one, so
/// that many concurrent callers share one commit (and the one writer) instead of queueing for a transaction each.
/// Nobody waits for a group to fill: a caller that finds no transaction under way writes its own at once.
///
/// One caller at a time leads: it writes its own work with everything queued behind it, answers the others, and
/// hands the lead to the next caller in line. Each caller's work runs in a savepoint of its own
/// (``Repositories/isolated(_:)``): work that fails is undone and gets its error, and the rest commits.
package final class GroupCommit: Sendable {
    private typealias Work = @Sendable (any Repositories) throws -> any Sendable

    private enum Turn: Sendable {
        case done(Result<any Sendable, any Error>)
        case lead
    }

    private struct Waiting: Sendable {
        let work: Work
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct Line: ~Copyable {
        var waiting: [Waiting] = []
        var led = false
    }

    private let store: any Store
    private let maximumGroup: Int
    private let line = Mutex(Line())

    /// A group holds at most `maximumGroup` callers' work.
    package init(store: any Store, maximumGroup: Int = 256) {
        self.store = store
        self.maximumGroup = maximumGroup
    }

    /// How many callers wait in line for a transaction under way to end.
    package var waiting: Int {
        line.withLock { $0.waiting.count }
    }

    /// Runs `body` in a transaction, possibly shared with other callers' work, like ``Store/write(_:)``.
    package func write<T: Sendable>(_ body: @escaping @Sendable (any Repositories) throws -> T) async throws -> T {
        let work: Work = { try body($0) }
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leads = line.withLock { line in
                guard line.led else {
                    line.led = true
                    return true
                }
                line.waiting.append(Waiting(work: work, continuation: continuation))
                return false
            }
            if leads { continuation.resume(returning: .lead) }
        }
        let result =
            switch turn {
            case .done(let result): result
            case .lead: await lead(with: work)
            }
        // The value is what `body` returned: a T.
        return try result.get() as! T
    }

    /// Writes `work` and the work in line behind it, answers their callers, then passes the lead on.
    private func lead(with work: @escaping Work) async -> Result<any Sendable, any Error> {
        let others = line.withLock { line in
            let group = Array(line.waiting.prefix(maximumGroup - 1))
            line.waiting.removeFirst(group.count)
            return group
        }
        let results = await commit([work] + others.map(\.work))
        // The next leader goes first: answering this group's callers queues their work (their responses) on the
        // executor, and a lead resumed behind it would leave the writer idle until that work is done.
        let next = line.withLock { line -> Waiting? in
            guard !line.waiting.isEmpty else {
                line.led = false
                return nil
            }
            return line.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        for (waiting, result) in zip(others, results.dropFirst()) {
            waiting.continuation.resume(returning: .done(result))
        }
        return results[0]
    }

    private func commit(_ group: [Work]) async -> [Result<any Sendable, any Error>] {
        do {
            return try await store.write { repositories in
                group.map { work in Result { try repositories.isolated { try work(repositories) } } }
            }
        } catch {
            return group.map { _ in .failure(error) }
        }
    }
}
