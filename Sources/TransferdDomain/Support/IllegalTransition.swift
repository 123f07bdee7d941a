/// An input a state machine's current state cannot accept (resume a completed task, end an ended background task):
/// the state it was in and the input's name. The API answers it with 409.
package struct IllegalTransition<State: Equatable & Sendable>: Error, Equatable {
    package let from: State
    package let input: String

    package init(from: State, input: String) {
        self.from = from
        self.input = input
    }
}
