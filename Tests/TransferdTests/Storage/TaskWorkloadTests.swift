import Foundation
import Testing
import TransferdDomain

@testable import TransferdServices
@testable import transferd

/// The ends of transfers read their sessions' workloads as they release their tasks' leases (one statement on
/// PostgreSQL, which locks the sessions' rows after the tasks'), and move them by each task's change, so that the
/// bookkeeping of a session that went idle reads nothing more. On the suite's database.
@Suite struct TaskWorkloadTests {
    @Test func aReleaseReadsTheWorkloadsOfItsTasksSessions() async throws {
        try await OpenedStore.onSuiteDatabase { store in
            // setup: session A with two running downloads and a suspended one, session B with one running; the
            // running ones leased to "i1"
            let now = Date()
            let (a, b, running) = try await store.write { repositories in
                let a = try await StoredRows.session("a", at: now, repositories)
                let b = try await StoredRows.session("b", at: now, repositories)
                var running: [Int64] = []
                for (number, session, starts) in [(1, a, true), (2, a, true), (3, a, false), (1, b, true)] {
                    let task = try await repositories.tasks.insert(StoredRows.download(number, in: session, starts: starts, at: now))
                    if starts { running.append(task.rowID) }
                }
                try await repositories.queue.lease(ids: running, TaskLease(owner: "i1", expiresAt: now + 60), startedAt: now)
                return (a, b, running)
            }
            let writes = { store.statistics?.statements[.write, default: 0] ?? 0 }

            // act
            let before = writes()
            let (released, workloads) = try await store.write { try await $0.queue.releaseLeases(ids: running, owner: "i1") }
            let sent = writes() - before

            // verify: both sessions' workloads, as their rows hold them
            #expect(released.count == 3)
            #expect(workloads[a] == SessionWorkload(state: .active, cancelsTasks: false, busy: 2, unfinished: 3))
            #expect(workloads[b] == SessionWorkload(state: .active, cancelsTasks: false, busy: 1, unfinished: 1))
            if store.statistics != nil { #expect(sent == 3, "BEGIN, the release with the workloads, COMMIT: \(sent)") }
        }
    }

    /// A task's change moves its session's workload: busy counts running and canceling tasks, unfinished every one
    /// not completed.
    @Test(arguments: TaskState.allCases, TaskState.allCases)
    func aChangeMovesTheWorkload(from old: TaskState, to new: TaskState) {
        let workload = SessionWorkload(state: .active, cancelsTasks: false, busy: 5, unfinished: 10)
        let moved = workload.moved(from: old, to: new)
        let busy = [TaskState.running, .canceling]
        #expect(moved.busy == 5 - (busy.contains(old) ? 1 : 0) + (busy.contains(new) ? 1 : 0))
        #expect(moved.unfinished == 10 - (old == .completed ? 0 : 1) + (new == .completed ? 0 : 1))
        #expect(moved.state == .active && !moved.cancelsTasks)
    }

    /// Held writes hand over the workload of a session that went idle as the tasks' changes leave it, once: a session
    /// settled is read again the next time.
    @Test func heldWritesMoveTheirSessionsWorkloads() {
        let now = Date()
        var tasks = (1...3).map { StoredRows.download($0, in: 7, starts: $0 < 3, at: now) }
        for index in tasks.indices { tasks[index].id = Int64(index + 1) }
        let held = HeldWrites(tasks: tasks, workloads: [7: SessionWorkload(state: .active, cancelsTasks: false, busy: 2, unfinished: 3)])

        var first = tasks[0]
        first.state = .completed
        held.hold(first)
        held.settle(sessionID: 7)
        let taken = held.take()
        #expect(taken.idleSessions.map(\.id) == [7])
        #expect(taken.idleSessions.first?.workload == SessionWorkload(state: .active, cancelsTasks: false, busy: 1, unfinished: 2))

        var second = tasks[1]
        second.state = .completed
        held.hold(second)
        held.settle(sessionID: 7)
        #expect(held.take().idleSessions.map { $0.workload == nil } == [true], "settled once: read again")
    }
}
