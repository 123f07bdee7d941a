/// The lifecycle of a session as a value, after NSURLSession's invalidation: `active → invalidating → invalidated`.
///
/// `finishTasksAndInvalidate` and `invalidateAndCancel` stop the session taking tasks at once; it becomes
/// `invalidated` when its last task has completed. No I/O happens here: the owner counts the session's tasks,
/// feeds the counts in, and performs the actions in the transaction of the change that caused them.
package struct SessionStateMachine: Sendable {
    package enum Input: Sendable, Equatable {
        /// `cancelTasks: false` is finishTasksAndInvalidate, `true` invalidateAndCancel.
        case invalidate(cancelTasks: Bool)
        /// Tasks changed: how many are queued, transferring or winding down (`busy`) and how many are not completed
        /// (`unfinished`); `taskBecameIdle` says whether the change took a task out of the busy ones.
        case tasksChanged(busy: Int, unfinished: Int, taskBecameIdle: Bool)
    }

    package enum Action: Sendable, Equatable {
        /// Persist `invalidating`; with `cancelTasks`, cancel every unfinished task, then settle.
        case beginInvalidation(cancelTasks: Bool)
        /// Write `session.events_finished` (urlSessionDidFinishEvents): the session had work and has none now.
        case finishEvents
        /// Write `session.events_finished` when the session just went idle, then persist `invalidated`, remove the
        /// partial files its resume data pointed to (an invalidated session takes no tasks), and write
        /// `session.invalidated`.
        case completeInvalidation(finishEvents: Bool)
        case none
    }

    package typealias IllegalTransition = TransferdDomain.IllegalTransition<Session.State>

    package private(set) var state: Session.State
    /// Whether the invalidation under way cancels the remaining tasks.
    package private(set) var cancelsTasks: Bool

    package init(state: Session.State, cancelsTasks: Bool) {
        self.state = state
        self.cancelsTasks = cancelsTasks
    }

    package mutating func handle(_ input: Input) throws(IllegalTransition) -> Action {
        switch (state, input) {
        case (.active, .invalidate(let cancelTasks)), (.invalidating, .invalidate(let cancelTasks)):
            // A second invalidation may turn finishTasksAndInvalidate into invalidateAndCancel, never back.
            state = .invalidating
            cancelsTasks = cancelsTasks || cancelTasks
            return .beginInvalidation(cancelTasks: cancelTasks)
        case (.invalidated, .invalidate):
            throw IllegalTransition(from: state, input: "invalidate")

        case (.active, .tasksChanged(let busy, _, _)) where busy > 0, (.invalidating, .tasksChanged(let busy, _, _)) where busy > 0:
            // Tasks are still under way: nothing is finished yet.
            return .none
        case (.invalidating, .tasksChanged(_, let unfinished, let becameIdle)) where unfinished == 0:
            state = .invalidated
            return .completeInvalidation(finishEvents: becameIdle)
        case (.active, .tasksChanged(_, _, true)), (.invalidating, .tasksChanged(_, _, true)):
            return .finishEvents
        case (.active, .tasksChanged), (.invalidating, .tasksChanged), (.invalidated, .tasksChanged):
            return .none
        }
    }
}
