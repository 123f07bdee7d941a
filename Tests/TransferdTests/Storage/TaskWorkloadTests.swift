import Foundation
import Testing
import TransferdDomain

@testable import transferd

/// The ends of transfers write their tasks and read the workloads of the sessions that went idle together (one
/// statement on PostgreSQL, where the counting trigger runs only once the statement is over): each workload is the
/// one the session's row holds once the tasks are written. On the suite's database.
@Suite struct TaskWorkloadTests {
    @Test func theWorkloadsReadWithTheTasksAreThoseTheirWritesLeave() async throws {
        try await OpenedStore.onSuiteDatabase { store in
            // setup: session A with two running downloads and a suspended one, session B with one running
            let now = Date()
            let (a, b, tasks) = try await store.write { repositories in
                let (a, b) = (
                    try await StoredRows.session("a", at: now, repositories), try await StoredRows.session("b", at: now, repositories)
                )
                var tasks: [TransferTask] = []
                for (number, session, starts) in [(1, a, true), (2, a, true), (3, a, false), (1, b, true)] {
                    tasks.append(try await repositories.tasks.insert(StoredRows.download(number, in: session, starts: starts, at: now)))
                }
                return (a, b, tasks)
            }
            let changed = zip(tasks, [TaskState.completed, nil, .running, .completed]).compactMap { task, state in
                state.map { state in
                    var task = task
                    task.state = state
                    return task
                }
            }
            let writes = { store.statistics?.statements[.write, default: 0] ?? 0 }

            // act: the tasks written with the workloads of both sessions read
            let before = writes()
            let (workloads, readAfter) = try await store.write { repositories in
                let workloads = try await repositories.tasks.update(changed, workloadsOf: [b, a])
                return (
                    workloads,
                    [a: try await repositories.tasks.workload(sessionID: a), b: try await repositories.tasks.workload(sessionID: b)]
                )
            }
            let sent = writes() - before

            // verify: A has two busy and two unfinished, B none; as read once the tasks are written
            #expect(workloads[a]?.busy == 2 && workloads[a]?.unfinished == 2)
            #expect(workloads[b]?.busy == 0 && workloads[b]?.unfinished == 0)
            #expect(workloads[a] == readAfter[a] ?? nil && workloads[b] == readAfter[b] ?? nil)
            if store.isShared { #expect(sent == 5, "BEGIN, the tasks with the workloads, the two reads after, COMMIT: \(sent)") }
            let states = try await store.read { try await $0.tasks.list(sessionID: a, after: 0, state: nil, limit: 10).map(\.state) }
            #expect(states == [.completed, .running, .running])
        }
    }
}
