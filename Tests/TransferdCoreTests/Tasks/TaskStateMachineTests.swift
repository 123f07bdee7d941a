import Foundation
import Testing

@testable import TransferdCore

@Suite struct TaskStateMachineTests {
    let file = StoredFile(size: 3, sha256: "abc", contentType: nil)

    private func run(
        _ state: TaskState,
        transferring: Bool = false,
        _ input: TaskStateMachine.Input
    ) throws -> (TaskState, TaskStateMachine.Action) {
        var machine = TaskStateMachine(state: state, isTransferring: transferring)
        let action = try machine.handle(input)
        return (machine.state, action)
    }

    @Test func resumeQueuesASuspendedTask() throws {
        #expect(try run(.suspended, .resume) == (.running, .enqueue))
    }

    @Test func repeatedInputsChangeNothing() throws {
        #expect(try run(.running, .resume) == (.running, .none))
        #expect(try run(.suspended, .suspend) == (.suspended, .none))
        #expect(try run(.canceling, transferring: true, .cancel) == (.canceling, .none))
    }

    @Test func suspendStopsOnlyATransferUnderWay() throws {
        #expect(try run(.running, transferring: false, .suspend) == (.suspended, .suspend(stopTransfer: false)))
        #expect(try run(.running, transferring: true, .suspend) == (.suspended, .suspend(stopTransfer: true)))
    }

    @Test func cancelCompletesAtOnceUnlessTransferring() throws {
        #expect(try run(.suspended, .cancel) == (.completed, .complete(error: .cancelled, file: nil)))
        #expect(try run(.running, transferring: false, .cancel) == (.completed, .complete(error: .cancelled, file: nil)))
        #expect(try run(.running, transferring: true, .cancel) == (.canceling, .stopTransferForCancel))
        #expect(try run(.canceling, .transferEnded(.interrupted)) == (.completed, .complete(error: .cancelled, file: nil)))
    }

    @Test func aCancelWinsOverATransferThatFinishedMeanwhile() throws {
        #expect(try run(.canceling, .transferEnded(.succeeded(file))) == (.completed, .complete(error: .cancelled, file: nil)))
    }

    @Test func transferOutcomesCompleteARunningTask() throws {
        #expect(try run(.running, .transferEnded(.succeeded(file))) == (.completed, .complete(error: nil, file: file)))
        let failure = TransferError.badServerResponse(status: 503)
        #expect(try run(.running, .transferEnded(.failed(failure))) == (.completed, .complete(error: failure, file: nil)))
    }

    @Test func anInterruptedRunningTaskStaysQueued() throws {
        #expect(try run(.running, .transferEnded(.interrupted)) == (.running, .none))
    }

    @Test func aSuspensionStandsAgainstALateOutcome() throws {
        #expect(try run(.suspended, .transferEnded(.succeeded(file))) == (.suspended, .none))
    }

    @Test(arguments: [TaskStateMachine.Input.resume, .suspend, .cancel, .transferEnded(.interrupted)])
    func aCompletedTaskAcceptsNothing(input: TaskStateMachine.Input) {
        #expect(throws: TaskStateMachine.IllegalTransition.self) { try run(.completed, input) }
    }

    @Test func aCancelingTaskCannotBeResumedOrSuspended() {
        #expect(throws: TaskStateMachine.IllegalTransition.self) { try run(.canceling, .resume) }
        #expect(throws: TaskStateMachine.IllegalTransition.self) { try run(.canceling, .suspend) }
    }

    @Test func aRetryableFailureKeepsTheTaskRunningUnlessItWasStopped() throws {
        let error = TransferError.badServerResponse(status: 503)
        let later = Date(timeIntervalSince1970: 1000)
        #expect(try run(.running, .transferFailedRetryable(error, at: later)) == (.running, .scheduleRetry(at: later, after: error)))
        #expect(try run(.canceling, .transferFailedRetryable(error, at: later)) == (.completed, .complete(error: .cancelled, file: nil)))
        #expect(try run(.suspended, .transferFailedRetryable(error, at: later)) == (.suspended, .none))
    }
}
