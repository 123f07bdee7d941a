import Foundation

/// The lifecycle of one transfer task as a value: feed it an input, get back what to do. No I/O happens here.
///
/// `suspended → running → canceling → completed`, after NSURLSessionTask. A running task is either queued or
/// transferring, and only a transferring one needs stopping; a canceling task carries how it will complete. The
/// owner persists the new state and performs the action in one transaction, and never decides anything itself.
package struct TaskStateMachine: Sendable {
    /// What a runner reports when a transfer attempt ends.
    package enum TransferOutcome: Sendable, Equatable {
        /// The transfer finished: a download with its stored file, an upload with none.
        case succeeded(StoredFile?)
        case failed(TransferError)
        /// The origin asked for credentials (didReceiveChallenge): the task waits for an answer.
        case challenged(ProtectionSpace, previousFailureCount: Int)
        /// The attempt was cut short (suspend, cancel or shutdown) before it finished.
        case interrupted

        /// A word for logs: `succeeded`, `failed: timedOut`, `challenged`, `interrupted`.
        package var summary: String {
            switch self {
            case .succeeded: "succeeded"
            case .failed(let error): "failed: \(error.code.rawValue)"
            case .challenged: "challenged"
            case .interrupted: "interrupted"
            }
        }
    }

    package enum Input: Sendable, Equatable {
        case resume
        case suspend
        /// `cancel()`, or an invalidation that cancels: a transfer under way is stopped first, and the task completes
        /// when it has stopped.
        case cancel(Cancellation)
        /// A deadline (an expiring background task): the task completes now, from its last checkpoint, and a
        /// transfer under way is stopped afterwards.
        case expire(Cancellation)
        case transferEnded(TransferOutcome)
        /// The attempt failed transiently and the retry policy allows another one at `at`.
        case transferFailedRetryable(TransferError, at: Date)
    }

    /// How a task being cancelled completes.
    package struct Cancellation: Codable, Sendable, Equatable {
        /// The error it completes with: `cancelled`, or why it was cut short (`backgroundTaskExpired`).
        package var error: TransferError
        /// Keep the partial file and issue resume data for it (cancel(byProducingResumeData:)).
        package var produceResumeData: Bool

        package init(error: TransferError = .cancelled, produceResumeData: Bool = false) {
            self.error = error
            self.produceResumeData = produceResumeData
        }

        /// Two requests to cancel the same task: resume data is produced when either asked for it.
        package func merged(with other: Cancellation) -> Cancellation {
            Cancellation(error: error, produceResumeData: produceResumeData || other.produceResumeData)
        }
    }

    /// How a task completes.
    package struct Completion: Sendable, Equatable {
        /// nil on success.
        package var error: TransferError?
        /// A finished download's file.
        package var file: StoredFile?
        /// Keep the partial file for resume data where its bytes can be continued.
        package var produceResumeData: Bool = false
        /// A transfer is still under way and must be stopped after the commit.
        package var stopTransfer: Bool = false

        package init(error: TransferError? = nil, file: StoredFile? = nil, produceResumeData: Bool = false, stopTransfer: Bool = false) {
            self.error = error
            self.file = file
            self.produceResumeData = produceResumeData
            self.stopTransfer = stopTransfer
        }
    }

    /// What the owner must do, in one transaction with the new state.
    package enum Action: Sendable, Equatable {
        /// Nothing changes: the input repeats the current state (resume a running task).
        case none
        /// Queue the task for a worker; write `task.resumed`.
        case enqueue
        /// Write `task.suspended`; stop the transfer if one is under way, keeping its partial file.
        case suspend(stopTransfer: Bool)
        /// Persist `canceling` with how it will complete, and stop the transfer under way; completion follows when
        /// it has stopped.
        case stopTransfer(Cancellation)
        /// Write `task.finished_downloading` when there is a file, then `task.completed`.
        case complete(Completion)
        /// Keep the task running, waiting until `at`; `after` says why the last attempt failed.
        case scheduleRetry(at: Date, after: TransferError)
        /// Keep the task running, waiting for the answer to a challenge for `space`; write
        /// `task.authentication_challenge`.
        case awaitChallengeAnswer(ProtectionSpace, previousFailureCount: Int)
        /// The transfer ended after its task had completed without it (a deadline completed it at once): nothing
        /// changes, but its partial file goes unless the task's resume data points to it.
        case discardLateTransfer
        /// A transfer interrupted by shutdown: the task stays queued and runs again on the next start.
        case requeue
    }

    package typealias IllegalTransition = TransferdDomain.IllegalTransition<TaskState>

    private enum State: Equatable {
        case suspended
        case queued
        case transferring
        case canceling(Cancellation)
        case completed
    }

    private var current: State

    /// The machine of a task in `state`; `isTransferring` says whether a running task's transfer is under way, and
    /// `cancellation` how a canceling one completes.
    package init(state: TaskState, isTransferring: Bool, cancellation: Cancellation? = nil) {
        current =
            switch state {
            case .suspended: .suspended
            case .running: isTransferring ? .transferring : .queued
            case .canceling: .canceling(cancellation ?? Cancellation())
            case .completed: .completed
            }
    }

    /// The state to persist.
    package var state: TaskState {
        switch current {
        case .suspended: .suspended
        case .queued, .transferring: .running
        case .canceling: .canceling
        case .completed: .completed
        }
    }

    package mutating func handle(_ input: Input) throws(IllegalTransition) -> Action {
        switch (current, input) {
        case (.suspended, .resume):
            current = .queued
            return .enqueue
        case (.queued, .resume), (.transferring, .resume), (.suspended, .suspend):
            return .none

        case (.queued, .suspend):
            current = .suspended
            return .suspend(stopTransfer: false)
        case (.transferring, .suspend):
            current = .suspended
            return .suspend(stopTransfer: true)

        case (.transferring, .cancel(let cancellation)):
            current = .canceling(cancellation)
            return .stopTransfer(cancellation)
        case (.canceling(let pending), .cancel(let cancellation)):
            // A second cancel changes nothing, unless it adds the request for resume data.
            let merged = pending.merged(with: cancellation)
            current = .canceling(merged)
            return merged == pending ? .none : .stopTransfer(merged)
        case (.suspended, .cancel(let cancellation)), (.queued, .cancel(let cancellation)),
            (.suspended, .expire(let cancellation)), (.queued, .expire(let cancellation)):
            current = .completed
            return .complete(Completion(error: cancellation.error, produceResumeData: cancellation.produceResumeData))
        case (.transferring, .expire(let cancellation)), (.canceling, .expire(let cancellation)):
            current = .completed
            return .complete(Completion(error: cancellation.error, produceResumeData: cancellation.produceResumeData, stopTransfer: true))

        case (.transferring, .transferEnded(.succeeded(let file))):
            current = .completed
            return .complete(Completion(error: nil, file: file))
        case (.transferring, .transferEnded(.failed(let error))):
            current = .completed
            return .complete(Completion(error: error))
        case (.transferring, .transferEnded(.interrupted)):
            current = .queued
            return .requeue
        case (.transferring, .transferEnded(.challenged(let space, let failures))):
            current = .queued
            return .awaitChallengeAnswer(space, previousFailureCount: failures)
        case (.transferring, .transferFailedRetryable(let error, let at)):
            current = .queued
            return .scheduleRetry(at: at, after: error)
        case (.canceling(let cancellation), .transferEnded), (.canceling(let cancellation), .transferFailedRetryable):
            // A cancel wins over whatever the transfer achieved meanwhile.
            current = .completed
            return .complete(Completion(error: cancellation.error, produceResumeData: cancellation.produceResumeData))
        case (.suspended, .transferEnded), (.suspended, .transferFailedRetryable),
            (.queued, .transferEnded), (.queued, .transferFailedRetryable):
            // The transfer ended after the task was suspended (or after a restart forgot it): the task's state stands.
            return .none
        case (.completed, .transferEnded), (.completed, .transferFailedRetryable):
            return .discardLateTransfer

        case (.canceling, .resume), (.canceling, .suspend), (.completed, .resume), (.completed, .suspend), (.completed, .cancel),
            (.completed, .expire):
            throw IllegalTransition(from: state, input: input.name)
        }
    }
}

extension TaskStateMachine.Input {
    /// The verb a client would use, for the 409's sentence.
    package var name: String {
        switch self {
        case .resume: "resume"
        case .suspend: "suspend"
        case .cancel, .expire: "cancel"
        case .transferEnded, .transferFailedRetryable: "transferEnded"
        }
    }
}
