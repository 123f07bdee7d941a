import Foundation
import Testing
import TransferdDomain

/// The task state machine over every (state, input) pair: what it becomes and what it asks its owner to do.
@Suite struct TaskStateMachineTests {
    /// The machine's states: NSURLSessionTask's four, with `running` split into queued and transferring, and
    /// `canceling` carrying how it completes.
    enum Start: CaseIterable, CustomTestStringConvertible {
        case suspended, queued, transferring, canceling, cancelingForResumeData, completed

        var machine: TaskStateMachine {
            switch self {
            case .suspended: TaskStateMachine(state: .suspended, isTransferring: false)
            case .queued: TaskStateMachine(state: .running, isTransferring: false)
            case .transferring: TaskStateMachine(state: .running, isTransferring: true)
            case .canceling: TaskStateMachine(state: .canceling, isTransferring: true, cancellation: plainCancel)
            case .cancelingForResumeData: TaskStateMachine(state: .canceling, isTransferring: true, cancellation: resumeDataCancel)
            case .completed: TaskStateMachine(state: .completed, isTransferring: false)
            }
        }

        var testDescription: String { "\(self)" }
    }

    static let file = StoredFile(size: 3, sha256: "abc", contentType: nil)
    static let failure = TransferError.badServerResponse(status: 503)
    static let later = Date(timeIntervalSince1970: 1000)
    static let plainCancel = TaskStateMachine.Cancellation()
    static let resumeDataCancel = TaskStateMachine.Cancellation(produceResumeData: true)
    static let expiry = TaskStateMachine.Cancellation(error: .backgroundTaskExpired, produceResumeData: true)

    static let inputs: [TaskStateMachine.Input] = [
        .resume, .suspend, .cancel(plainCancel), .cancel(resumeDataCancel), .expire(expiry), .transferEnded(.succeeded(file)),
        .transferEnded(.failed(failure)), .transferEnded(.interrupted), .transferFailedRetryable(failure, at: later),
        .transferEnded(.challenged(space, previousFailureCount: 0)),
    ]
    static let space = ProtectionSpace(authenticationMethod: "basic", realm: "files", host: "127.0.0.1", port: 80, isProxy: false)

    /// What each pair must give: the persisted state and the action, or nil where the input is refused (409).
    static func expected(_ start: Start, _ input: TaskStateMachine.Input) -> (TaskState, TaskStateMachine.Action)? {
        let cancelled = TaskStateMachine.Completion(error: .cancelled)
        switch (start, input) {
        case (.suspended, .resume): return (.running, .enqueue)
        case (.suspended, .suspend): return (.suspended, .none)
        case (.suspended, .cancel(let cancellation)):
            return (.completed, .complete(.init(error: .cancelled, produceResumeData: cancellation.produceResumeData)))
        case (.suspended, .expire), (.queued, .expire):
            return (.completed, .complete(.init(error: .backgroundTaskExpired, produceResumeData: true)))
        case (.suspended, _): return (.suspended, .none)

        case (.queued, .resume), (.transferring, .resume): return (.running, .none)
        case (.queued, .suspend): return (.suspended, .suspend(stopTransfer: false))
        case (.queued, .cancel(let cancellation)):
            return (.completed, .complete(.init(error: .cancelled, produceResumeData: cancellation.produceResumeData)))
        case (.queued, _): return (.running, .none)

        case (.transferring, .suspend): return (.suspended, .suspend(stopTransfer: true))
        case (.transferring, .cancel(let cancellation)): return (.canceling, .stopTransfer(cancellation))
        case (.transferring, .expire):
            return (.completed, .complete(.init(error: .backgroundTaskExpired, produceResumeData: true, stopTransfer: true)))
        case (.transferring, .transferEnded(.succeeded(let file))): return (.completed, .complete(.init(file: file)))
        case (.transferring, .transferEnded(.failed(let error))): return (.completed, .complete(.init(error: error)))
        case (.transferring, .transferEnded(.interrupted)): return (.running, .requeue)
        case (.transferring, .transferEnded(.challenged(let space, let failures))):
            return (.running, .awaitChallengeAnswer(space, previousFailureCount: failures))
        case (.transferring, .transferFailedRetryable(let error, let at)): return (.running, .scheduleRetry(at: at, after: error))

        case (.canceling, .resume), (.canceling, .suspend), (.cancelingForResumeData, .resume), (.cancelingForResumeData, .suspend):
            return nil
        case (.canceling, .cancel(let cancellation)):
            return cancellation.produceResumeData ? (.canceling, .stopTransfer(resumeDataCancel)) : (.canceling, .none)
        case (.cancelingForResumeData, .cancel): return (.canceling, .none)
        case (.canceling, .expire), (.cancelingForResumeData, .expire):
            return (.completed, .complete(.init(error: .backgroundTaskExpired, produceResumeData: true, stopTransfer: true)))
        case (.canceling, _): return (.completed, .complete(cancelled))
        case (.cancelingForResumeData, _): return (.completed, .complete(.init(error: .cancelled, produceResumeData: true)))

        case (.completed, .transferEnded), (.completed, .transferFailedRetryable): return (.completed, .discardLateTransfer)
        case (.completed, _): return nil
        }
    }

    @Test(arguments: Start.allCases, inputs)
    func everyStateAndInput(start: Start, input: TaskStateMachine.Input) {
        var machine = start.machine
        let before = machine.state
        let result = Result { () throws(TaskStateMachine.IllegalTransition) in try machine.handle(input) }
        switch (Self.expected(start, input), result) {
        case (let expected?, .success(let action)):
            #expect(machine.state == expected.0)
            #expect(action == expected.1)
        case (nil, .failure(let illegal)):
            #expect(illegal == TaskStateMachine.IllegalTransition(from: before, input: input.name))
            #expect(machine.state == before, "a refused input changes nothing")
        case (let expected, let result):
            Issue.record("expected \(String(describing: expected)), got \(result)")
        }
    }

    @Test func aSecondCancelAddsTheRequestForResumeDataAndKeepsIt() throws {
        var machine = TaskStateMachine(state: .running, isTransferring: true)
        #expect(try machine.handle(.cancel(Self.plainCancel)) == .stopTransfer(Self.plainCancel))
        #expect(try machine.handle(.cancel(Self.resumeDataCancel)) == .stopTransfer(Self.resumeDataCancel))
        #expect(try machine.handle(.cancel(Self.plainCancel)) == .none)
        #expect(try machine.handle(.transferEnded(.interrupted)) == .complete(.init(error: .cancelled, produceResumeData: true)))
    }
}
