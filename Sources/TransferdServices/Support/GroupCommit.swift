import Synchronization
import TransferdDomain

/// Group commit: writes that callers submit while a transaction waits for the writer or is being written go
/// together into the next one, so that many concurrent callers share one commit (and the one writer) instead of
/// queueing for a transaction each. Nobody waits for a group to fill.
///
/// A caller that finds no transaction waiting to gather leads: it submits a transaction at once, which queues behind
/// the one under way, if any. When that transaction starts, it gathers the callers in line behind its leader and
/// writes their work with the leader's; they are answered as it commits. So the writer always has the next group
/// queued while it writes one, and nobody waits for a leader to be scheduled between two transactions.
///
/// A group is written without savepoints first. When a caller's work fails, the transaction is rolled back and the
/// group written again with each caller's work in a savepoint of its own (``Repositories/isolated(_:)``): the work that
/// fails is undone and gets its error, and the rest commits.
///
/// A group runs its callers' work in the order of the sessions it writes for, so that every group takes the rows of
/// its sessions in one order (ascending ids). Two instances' groups took them in the order their callers came, and
/// deadlocked on PostgreSQL, where writes wait for the rows they change.
package final class GroupCommit: Sendable {
    fileprivate typealias Work = @Sendable (any Repositories) async throws -> any Sendable
    fileprivate typealias Answer = Result<any Sendable, any Error>

    fileprivate enum Turn: Sendable {
        case done(Answer)
        case lead
    }

    /// A caller's work, and the session it writes for (`Int64.max` for none, which runs last).
    fileprivate struct Member: Sendable {
        let work: Work
        let session: Int64
        /// The batch the work is an item of, written with the group's other items of it; nil for work of its own.
        var batch: Batch? = nil
    }

    /// The items of one kind of ``BatchWrite``, for one session and one request's trace, that a group writes
    /// together. One session's: a batch then takes its session's rows where the group's order puts them (a batch
    /// of two sessions' tasks changed both sessions' counters in no set order, and deadlocked with another
    /// instance's group). A kind that takes its sessions' rows in order itself spans sessions
    /// (``BatchWrite/spansSessions``).
    fileprivate struct Batch: Sendable {
        struct Key: Hashable, Sendable {
            let kind: ObjectIdentifier
            let session: Int64
            let traceparent: String?
        }

        let key: Key
        let item: any Sendable
        /// Writes the items (each an `Item` of the kind) and returns their outcomes, in order.
        let write: @Sendable ([any Sendable], any Repositories) async throws -> [any Sendable]
    }

    fileprivate struct Waiting: Sendable {
        let member: Member
        let continuation: CheckedContinuation<Turn, Never>
    }

    private let store: any Store
    private let maximumGroup: Int
    /// Led while a leader's transaction is submitted and has not yet gathered its group: newcomers wait for it.
    private let line = Mutex(LeaderLine<Waiting>())

    /// A group holds at most `maximumGroup` callers' work.
    package init(store: any Store, maximumGroup: Int = 256) {
        self.store = store
        self.maximumGroup = maximumGroup
    }

    /// How many callers wait in line for a transaction to gather them.
    package var waiting: Int {
        line.withLock { $0.waiting.count }
    }

    /// Runs `body` in a transaction, possibly shared with other callers' work, like ``Store/write(_:)``. The work
    /// writes for the session `sessionID` (its rows and its tasks'), if for one.
    package func write<T: Sendable>(
        forSession sessionID: Int64? = nil,
        _ body: @escaping @Sendable (any Repositories) async throws -> T
    ) async throws -> T {
        let traceparent = Trace.parent
        let work = Member(
            work: { repositories in try await repositories.traced(traceparent) { try await body(repositories) } },
            session: sessionID ?? .max
        )
        // The value is what `body` returned: a T.
        return try await submit(work) as! T
    }

    /// Waits in line with `work`, or leads a transaction with it; returns what it returned.
    private func submit(_ work: Member) async throws -> any Sendable {
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            if line.withLock({ $0.enter(Waiting(member: work, continuation: continuation)) }) { continuation.resume(returning: .lead) }
        }
        let answer =
            switch turn {
            case .done(let answer): answer
            case .lead: await lead(with: work)
            }
        return try answer.get()
    }

    /// Writes `item` with the other items of `writer`'s kind for the same session that a transaction gathers
    /// (``BatchWrite``), like ``write(forSession:_:)``; returns its outcome.
    package func write<Writer: BatchWrite>(
        _ item: Writer.Item,
        by writer: Writer,
        forSession sessionID: Int64? = nil
    ) async throws
        -> Writer.Outcome
    {
        let (traceparent, session) = (Trace.parent, sessionID ?? .max)
        let batch = Batch(
            key: Batch.Key(kind: ObjectIdentifier(Writer.self), session: writer.spansSessions ? .max : session, traceparent: traceparent),
            item: item,
            write: { items, repositories in
                // Every item of a batch is the writer's: the batch's key names its kind.
                try await repositories.traced(traceparent) { try await writer.write(items.map { $0 as! Writer.Item }, repositories) }
            }
        )
        let work: Work = { repositories in try await batch.write([item], repositories)[0] }
        return try await submit(Member(work: work, session: session, batch: batch)) as! Writer.Outcome
    }

    /// Submits a transaction that writes `work` and the work it finds in line when it starts. The followers are
    /// answered when it commits, or with its error when it does not. It runs in a task of its own: the work of
    /// others must not fail because the leader's caller was cancelled (a transfer stopped while it led a commit).
    private func lead(with work: Member) async -> Answer {
        let followers = Followers()
        let store = store
        do {
            return try await Task {
                do {
                    return try await store.write {
                        try await self.write([work] + followers.gather { self.gather() }.map(\.member), followers, $0)
                    }
                } catch is MemberFailed {
                    return try await store.write { repositories in
                        try await self.write([work] + followers.gather { self.gather() }.map(\.member), followers, repositories) { work in
                            try await repositories.isolated { try await work(repositories) }
                        }
                    }
                }
            }.value
        } catch {
            if !followers.fail(error) { handOn() }
            return .failure(error)
        }
    }

    /// A member of a group failed in a transaction that ran the group without savepoints: the transaction is rolled
    /// back and the group runs again, each member in a savepoint of its own.
    private struct MemberFailed: Error {}

    /// Writes the work of a group's members in `repositories`' transaction, in the order of their sessions, and
    /// answers the leader (the first); the followers are answered once it commits. Without `isolating`, the first
    /// work to fail rolls the transaction back (alone, with its own error; in a group, as `MemberFailed`), which
    /// costs nothing while none fails: a savepoint is two round trips on PostgreSQL.
    private func write(
        _ members: [Member],
        _ followers: Followers,
        _ repositories: any Repositories,
        isolating: ((Work) async throws -> any Sendable)? = nil
    ) async throws -> Answer {
        var answers = [Answer?](repeating: nil, count: members.count)
        // Without savepoints, a batch's items are written together, where the first of them comes in the order.
        let batches =
            isolating == nil ? Dictionary(grouping: members.indices.filter { members[$0].batch != nil }) { members[$0].batch!.key } : [:]
        for index in members.indices.sorted(by: { (members[$0].session, $0) < (members[$1].session, $1) }) where answers[index] == nil {
            let (work, items) = (members[index].work, members[index].batch.flatMap { batches[$0.key] } ?? [index])
            do {
                if items.count > 1 {
                    let outcomes = try await members[index].batch!.write(items.map { members[$0].batch!.item }, repositories)
                    for (item, outcome) in zip(items, outcomes) { answers[item] = .success(outcome) }
                } else {
                    if let isolating {
                        answers[index] = .success(try await isolating(work))
                    } else {
                        answers[index] = .success(try await work(repositories))
                    }
                }
            } catch let conflict as any TransactionConflict {
                throw conflict
            } catch {
                guard isolating != nil else { throw members.count == 1 ? error : MemberFailed() }
                answers[index] = .failure(error)
            }
        }
        let answered = answers.compactMap { $0 }
        repositories.afterCommit { followers.answer(Array(answered.dropFirst())) }
        return answered[0]
    }

    /// Takes the callers in line for the transaction that starts, up to a group's size beside its leader. Whoever
    /// is left leads the next transaction, submitted now to queue behind this one.
    private func gather() -> [Waiting] {
        let (group, next) = line.withLock { line -> ([Waiting], Waiting?) in
            let group = Array(line.waiting.prefix(maximumGroup - 1))
            line.waiting.removeFirst(group.count)
            guard !line.waiting.isEmpty else {
                line.isLed = false
                return (group, nil)
            }
            return (group, line.waiting.removeFirst())
        }
        next?.continuation.resume(returning: .lead)
        return group
    }

    /// After a transaction failed before gathering: the next caller in line leads instead.
    private func handOn() {
        let next = line.withLock { line -> Waiting? in
            guard !line.waiting.isEmpty else {
                line.isLed = false
                return nil
            }
            return line.waiting.removeFirst()
        }
        next?.continuation.resume(returning: .lead)
    }
}

/// The followers one transaction gathered, answered exactly once: with their results when it commits, or with its
/// error. A transaction body that runs again (a store may retry one) writes the same group.
private final class Followers: Sendable {
    private enum State {
        case notGathered
        case gathered([GroupCommit.Waiting])
        case answered
    }

    private let state = Mutex(State.notGathered)

    func gather(_ take: () -> [GroupCommit.Waiting]) -> [GroupCommit.Waiting] {
        state.withLock { state in
            if case .gathered(let group) = state { return group }
            let group = take()
            state = .gathered(group)
            return group
        }
    }

    func answer(_ answers: [GroupCommit.Answer]) {
        for (waiting, answer) in zip(take(), answers) {
            waiting.continuation.resume(returning: .done(answer))
        }
    }

    /// Answers the gathered followers with `error`; false when the transaction never gathered any.
    func fail(_ error: any Error) -> Bool {
        let (gathered, group) = state.withLock { state -> (Bool, [GroupCommit.Waiting]) in
            switch state {
            case .notGathered: return (false, [])
            case .gathered(let group):
                state = .answered
                return (true, group)
            case .answered: return (true, [])
            }
        }
        for waiting in group { waiting.continuation.resume(returning: .done(.failure(error))) }
        return gathered
    }

    private func take() -> [GroupCommit.Waiting] {
        state.withLock { state in
            guard case .gathered(let group) = state else { return [] }
            state = .answered
            return group
        }
    }
}

/// Work of one kind that a group commit writes for all its callers together, with set-based statements (one
/// `UPDATE` of many rows) where work of their own would send one statement each: ``GroupCommit/write(_:by:forSession:)``.
/// When an item fails, the group is written again with each item alone, in a savepoint of its own.
package protocol BatchWrite: Sendable {
    associatedtype Item: Sendable
    associatedtype Outcome: Sendable
    /// Writes `items` in the caller's transaction; returns one outcome for each, in order.
    func write(_ items: [Item], _ repositories: any Repositories) async throws -> [Outcome]
    /// Whether one batch holds the items of every session in the group, not one session's. Its writes must take
    /// the sessions' rows in ascending order themselves, before any other row, and its group commit must write no
    /// other work: the batch is written where its lowest session comes.
    var spansSessions: Bool { get }
}

extension BatchWrite {
    package var spansSessions: Bool { false }
}
