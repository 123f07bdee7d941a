import Foundation
import Testing
import TransferdDomain

/// The background-task state machine over every (state, input) pair, at moments before the warning, between
/// the warning and the deadline, and after the deadline.
@Suite struct BackgroundTaskStateMachineTests {
    static let begun = Date(timeIntervalSince1970: 1_000_000)
    /// Granted 30 s with a warning 5 s before the deadline.
    static func task(_ state: BackgroundTask.State, warned: Bool = false) -> BackgroundTask {
        var task = BackgroundTask(publicID: "b", sessionID: 1, name: "n", duration: 30, cap: 180, expirationWarning: 5, now: begun)
        task.state = state
        task.warned = warned
        return task
    }

    enum Start: CaseIterable, CustomTestStringConvertible {
        case active, activeWarned, ended, completed, expired

        var task: BackgroundTask {
            switch self {
            case .active: BackgroundTaskStateMachineTests.task(.active)
            case .activeWarned: BackgroundTaskStateMachineTests.task(.active, warned: true)
            case .ended: BackgroundTaskStateMachineTests.task(.ended)
            case .completed: BackgroundTaskStateMachineTests.task(.completed)
            case .expired: BackgroundTaskStateMachineTests.task(.expired, warned: true)
            }
        }

        var testDescription: String { "\(self)" }
    }

    static let beforeWarning = begun.addingTimeInterval(10)
    static let afterWarning = begun.addingTimeInterval(26)
    static let afterDeadline = begun.addingTimeInterval(31)

    static let inputs: [BackgroundTaskStateMachine.Input] = [
        .end(cancelTasks: false), .end(cancelTasks: true), .clockTicked(now: beforeWarning), .clockTicked(now: afterWarning),
        .clockTicked(now: afterDeadline), .transferCompleted(unfinished: 1), .transferCompleted(unfinished: 0),
    ]

    /// The state, whether it has warned, and the action; nil where the input is refused.
    static func expected(
        _ start: Start,
        _ input: BackgroundTaskStateMachine.Input
    ) -> (BackgroundTask.State, Bool, BackgroundTaskStateMachine.Action)? {
        let task = start.task
        switch (start, input) {
        case (.active, .end(let cancel)), (.activeWarned, .end(let cancel)): return (.ended, task.warned, .end(cancelTasks: cancel))
        case (_, .end): return nil
        case (.active, .clockTicked(afterDeadline)): return (.expired, true, .expire(warnFirst: true))
        case (.activeWarned, .clockTicked(afterDeadline)): return (.expired, true, .expire(warnFirst: false))
        case (.active, .clockTicked(afterWarning)): return (.active, true, .warn)
        case (.active, .transferCompleted(0)), (.activeWarned, .transferCompleted(0)): return (.completed, task.warned, .complete)
        case (_, .clockTicked), (_, .transferCompleted): return (task.state, task.warned, .none)
        }
    }

    @Test(arguments: Start.allCases, inputs)
    func everyStateAndInput(start: Start, input: BackgroundTaskStateMachine.Input) {
        var machine = BackgroundTaskStateMachine(start.task)
        let result = Result { () throws(BackgroundTaskStateMachine.IllegalTransition) in try machine.handle(input, at: Self.afterWarning) }
        switch (Self.expected(start, input), result) {
        case (let expected?, .success(let action)):
            #expect(machine.task.state == expected.0)
            #expect(machine.task.warned == expected.1)
            #expect(action == expected.2)
            #expect(
                (machine.task.endedAt != nil) == [.ended, .completed, .expired].contains(machine.task.state) || start.task.endedAt == nil
            )
        case (nil, .failure(let illegal)):
            #expect(illegal == BackgroundTaskStateMachine.IllegalTransition(from: start.task.state, input: "end"))
        case (let expected, let result):
            Issue.record("expected \(String(describing: expected)), got \(result)")
        }
    }

    @Test func backgroundTimeRemainingRunsWhileActiveAndStopsWhenEnded() throws {
        var machine = BackgroundTaskStateMachine(Self.task(.active))
        #expect(machine.task.remaining(at: Self.beforeWarning) == 20)
        _ = try machine.handle(.end(cancelTasks: false), at: Self.beforeWarning)
        #expect(machine.task.remaining(at: Self.afterDeadline) == 20, "frozen once ended")
        #expect(Self.task(.expired).remaining(at: Self.beforeWarning) == 0)
    }
}
