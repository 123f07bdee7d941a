import Foundation

/// The lifecycle of a finite-length background task as a value: `active`, then `ended` (endBackgroundTask),
/// `completed` (every transfer of it completed) or `expired` (its deadline passed). No I/O happens here.
package struct BackgroundTaskStateMachine: Sendable {
    package enum Input: Sendable, Equatable {
        /// endBackgroundTask; `cancelTasks` also cancels its unfinished transfers.
        case end(cancelTasks: Bool)
        /// The clock reached `now`.
        case clockTicked(now: Date)
        /// One of its transfers completed; `unfinished` of them are left.
        case transferCompleted(unfinished: Int)
    }

    package enum Action: Sendable, Equatable {
        case none
        /// Persist `ended`; with `cancelTasks`, cancel its unfinished transfers.
        case end(cancelTasks: Bool)
        /// Write `background_task.expiring`: the expiration handler's moment.
        case warn
        /// Persist `expired`, complete its unfinished transfers at once with `backgroundTaskExpired` (with resume data
        /// where they can be continued), and write `background_task.expired` (after `background_task.expiring` when
        /// the warning was not written yet).
        case expire(warnFirst: Bool)
        /// Persist `completed` and write `background_task.completed`.
        case complete
    }

    package typealias IllegalTransition = TransferdDomain.IllegalTransition<BackgroundTask.State>

    package private(set) var task: BackgroundTask

    package init(_ task: BackgroundTask) {
        self.task = task
    }

    package mutating func handle(_ input: Input, at now: Date) throws(IllegalTransition) -> Action {
        switch (task.state, input) {
        case (.active, .end(let cancelTasks)):
            task.state = .ended
            task.endedAt = now
            return .end(cancelTasks: cancelTasks)
        case (_, .end):
            throw IllegalTransition(from: task.state, input: "end")

        case (.active, .clockTicked(let time)) where task.expiresAt <= time:
            let warnFirst = !task.warned
            task.warned = true
            task.state = .expired
            task.endedAt = time
            return .expire(warnFirst: warnFirst)
        case (.active, .clockTicked(let time)) where !task.warned && task.warningAt <= time:
            task.warned = true
            return .warn
        case (_, .clockTicked):
            return .none

        case (.active, .transferCompleted(let unfinished)) where unfinished == 0:
            task.state = .completed
            task.endedAt = now
            return .complete
        case (_, .transferCompleted):
            return .none
        }
    }
}
