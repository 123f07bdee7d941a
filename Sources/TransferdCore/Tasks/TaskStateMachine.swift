import Foundation

/// The lifecycle of one transfer task as a value: feed it an input, get back what to do. No I/O happens here.
///
/// `suspended → running → canceling → completed`, after NSURLSessionTask. A running task is either queued
/// or transferring; the owner says which, because only a transferring task needs interrupting.
struct TaskStateMachine {
    /// What a runner reports when a transfer attempt ends.
    enum TransferOutcome: Sendable, Equatable {
        /// The transfer finished: a download with its stored file, an upload with none.
        case succeeded(StoredFile?)
        case failed(TransferError)
        /// The attempt was cut short (suspend, cancel or shutdown) before it finished.
        case interrupted
    }

    enum Input: Equatable {
        case resume
        case suspend
        case cancel
        case transferEnded(TransferOutcome)
        /// The attempt failed transiently and the retry policy allows another one at `at`.
        case transferFailedRetryable(TransferError, at: Date)
    }

    /// What the owner must do, in one transaction with the new state.
    enum Action: Equatable {
        /// Nothing changes: the input repeats the current state (resume a running task) or comes too late.
        case none
        /// Queue the task for a worker; write `task.resumed`.
        case enqueue
        /// Write `task.suspended`; stop the transfer if one is under way, keeping its partial file.
        case suspend(stopTransfer: Bool)
        /// Stop the transfer under way; completion follows when it has stopped.
        case stopTransferForCancel
        /// Write `task.finished_downloading` when there is a file, then `task.completed`; discard partial data on error.
        case complete(error: TransferError?, file: StoredFile?)
        /// Keep the task running, waiting until `at`; `error` says why the last attempt failed.
        case scheduleRetry(at: Date, after: TransferError)
    }

    /// An input the current state cannot accept (resume a completed task); the API answers 409.
    struct IllegalTransition: Error, Equatable {
        let from: TaskState
        let input: String
    }

    private(set) var state: TaskState
    private let isTransferring: Bool

    init(state: TaskState, isTransferring: Bool) {
        self.state = state
        self.isTransferring = isTransferring
    }

    mutating func handle(_ input: Input) throws(IllegalTransition) -> Action {
        switch (state, input) {
        case (.suspended, .resume):
            state = .running
            return .enqueue
        case (.running, .resume), (.suspended, .suspend), (.canceling, .cancel):
            return .none

        case (.running, .suspend):
            state = .suspended
            return .suspend(stopTransfer: isTransferring)

        case (.running, .cancel) where isTransferring:
            state = .canceling
            return .stopTransferForCancel
        case (.suspended, .cancel), (.running, .cancel):
            state = .completed
            return .complete(error: .cancelled, file: nil)

        case (.running, .transferEnded(.succeeded(let file))):
            state = .completed
            return .complete(error: nil, file: file)
        case (.running, .transferEnded(.failed(let error))):
            state = .completed
            return .complete(error: error, file: nil)
        case (.running, .transferEnded(.interrupted)):
            // Shutdown interrupted the transfer: the task stays queued and runs again on the next start.
            return .none
        case (.running, .transferFailedRetryable(let error, let at)):
            return .scheduleRetry(at: at, after: error)
        case (.canceling, .transferEnded), (.canceling, .transferFailedRetryable):
            state = .completed
            return .complete(error: .cancelled, file: nil)
        case (.suspended, .transferEnded), (.suspended, .transferFailedRetryable):
            // The transfer ended after the task was suspended; the suspension stands.
            return .none

        case (.canceling, .resume), (.canceling, .suspend), (.completed, _):
            throw IllegalTransition(from: state, input: input.name)
        }
    }
}

extension TaskStateMachine.Input {
    var name: String {
        switch self {
        case .resume: "resume"
        case .suspend: "suspend"
        case .cancel: "cancel"
        case .transferEnded, .transferFailedRetryable: "transferEnded"
        }
    }
}
