import Synchronization
import TransferdDomain

/// Group commit: writes that callers submit while a transaction is being written go together into the next one, so
/// that many concurrent callers share one commit (and the one writer) instead of queueing for a transaction each.
/// Nobody waits for a group to fill: a caller that finds no transaction under way writes its own at once.
///
/// One caller at a time leads: it writes its own input with everything queued behind it, answers the others, and
/// hands the lead to the next caller in line. Each input is written in a savepoint of its own
/// (``Repositories/isolated(_:)``): one that fails is undone and gets its error, and the others commit.
package final class GroupCommit<Input: Sendable, Output: Sendable>: Sendable {
    package typealias Body = @Sendable (any Repositories, Input) throws -> Output

    private enum Turn: Sendable {
        case done(Result<Output, any Error>)
        case lead
    }

    private struct Waiting: Sendable {
        let input: Input
        let continuation: CheckedContinuation<Turn, Never>
    }

    private struct Line: ~Copyable {
        var waiting: [Waiting] = []
        var led = false
    }

    private let store: any Store
    private let maximumGroup: Int
    private let body: Body
    private let line = Mutex(Line())

    /// `body` writes one input in the transaction it is given; a group holds at most `maximumGroup` inputs.
    package init(store: any Store, maximumGroup: Int = 256, body: @escaping Body) {
        self.store = store
        self.maximumGroup = maximumGroup
        self.body = body
    }

    /// How many callers wait in line for a transaction under way to end.
    package var waiting: Int {
        line.withLock { $0.waiting.count }
    }

    /// Writes `input` in a transaction, possibly shared with other callers' inputs; returns what `body` returned.
    package func write(_ input: Input) async throws -> Output {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let leads = line.withLock { line in
                guard line.led else {
                    line.led = true
                    return true
                }
                line.waiting.append(Waiting(input: input, continuation: continuation))
                return false
            }
            if leads { continuation.resume(returning: .lead) }
        }
        switch turn {
        case .done(let result): return try result.get()
        case .lead: return try await lead(with: input).get()
        }
    }

    /// Writes `input` and the inputs in line behind it, answers their callers, then passes the lead on.
    private func lead(with input: Input) async -> Result<Output, any Error> {
        let others = line.withLock { line in
            let group = Array(line.waiting.prefix(maximumGroup - 1))
            line.waiting.removeFirst(group.count)
            return group
        }
        let results = await commit([input] + others.map(\.input))
        for (waiting, result) in zip(others, results.dropFirst()) {
            waiting.continuation.resume(returning: .done(result))
        }
        let next = line.withLock { line -> Waiting? in
            guard !line.waiting.isEmpty else {
                line.led = false
                return nil
            }
            return line.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
        return results[0]
    }

    private func commit(_ inputs: [Input]) async -> [Result<Output, any Error>] {
        let body = body
        do {
            return try await store.write { repositories in
                inputs.map { input in Result { try repositories.isolated { try body(repositories, input) } } }
            }
        } catch {
            return inputs.map { _ in .failure(error) }
        }
    }
}
