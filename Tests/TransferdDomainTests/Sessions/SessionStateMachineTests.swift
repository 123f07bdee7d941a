import Testing
import TransferdDomain

/// The session state machine over every (state, input) pair.
@Suite struct SessionStateMachineTests {
    enum Start: CaseIterable, CustomTestStringConvertible {
        case active, invalidating, invalidatingAndCancelling, invalidated

        var machine: SessionStateMachine {
            switch self {
            case .active: SessionStateMachine(state: .active, cancelsTasks: false)
            case .invalidating: SessionStateMachine(state: .invalidating, cancelsTasks: false)
            case .invalidatingAndCancelling: SessionStateMachine(state: .invalidating, cancelsTasks: true)
            case .invalidated: SessionStateMachine(state: .invalidated, cancelsTasks: false)
            }
        }

        var testDescription: String { "\(self)" }
    }

    static let inputs: [SessionStateMachine.Input] = [
        .invalidate(cancelTasks: false), .invalidate(cancelTasks: true),
        .tasksChanged(busy: 1, unfinished: 2, taskBecameIdle: true), .tasksChanged(busy: 1, unfinished: 1, taskBecameIdle: false),
        .tasksChanged(busy: 0, unfinished: 1, taskBecameIdle: true), .tasksChanged(busy: 0, unfinished: 1, taskBecameIdle: false),
        .tasksChanged(busy: 0, unfinished: 0, taskBecameIdle: true), .tasksChanged(busy: 0, unfinished: 0, taskBecameIdle: false),
    ]

    /// The state, whether it cancels tasks, and the action each pair must give; nil where the input is refused.
    static func expected(_ start: Start, _ input: SessionStateMachine.Input) -> (Session.State, Bool, SessionStateMachine.Action)? {
        let cancels = start == .invalidatingAndCancelling
        switch (start, input) {
        case (.invalidated, .invalidate): return nil
        case (_, .invalidate(let cancelTasks)): return (.invalidating, cancels || cancelTasks, .beginInvalidation(cancelTasks: cancelTasks))
        case (.invalidated, _): return (.invalidated, false, .none)
        case (_, .tasksChanged(let busy, _, _)) where busy > 0: return (start == .active ? .active : .invalidating, cancels, .none)
        case (.active, .tasksChanged(_, _, let becameIdle)): return (.active, false, becameIdle ? .finishEvents : .none)
        case (_, .tasksChanged(_, 0, let becameIdle)): return (.invalidated, cancels, .completeInvalidation(finishEvents: becameIdle))
        case (_, .tasksChanged(_, _, let becameIdle)): return (.invalidating, cancels, becameIdle ? .finishEvents : .none)
        }
    }

    @Test(arguments: Start.allCases, inputs)
    func everyStateAndInput(start: Start, input: SessionStateMachine.Input) {
        var machine = start.machine
        let result = Result { () throws(SessionStateMachine.IllegalTransition) in try machine.handle(input) }
        switch (Self.expected(start, input), result) {
        case (let expected?, .success(let action)):
            #expect(machine.state == expected.0)
            #expect(machine.cancelsTasks == expected.1)
            #expect(action == expected.2)
        case (nil, .failure(let illegal)):
            #expect(illegal == SessionStateMachine.IllegalTransition(from: .invalidated, input: "invalidate"))
        case (let expected, let result):
            Issue.record("expected \(String(describing: expected)), got \(result)")
        }
    }
}
