import Foundation
import Testing
import TransferdDomain
import TransferdEngine

/// What an attempt that threw ends as: a cancellation from inside it interrupts its task, which continues; it
/// never fails the task (a loaded run once completed ten tasks with "The transfer failed (CancellationError)").
@Suite struct ThrownErrorTests {
    struct Refused: Error {}

    @Test(arguments: [
        (CancellationError() as any Error, "interrupted"),
        (TransferError(code: .timedOut, message: "late") as any Error, "failed"),
        (Refused() as any Error, "failed"),
    ])
    func anAttemptThatThrewEndsAs(_ error: any Error, _ expected: String) {
        let outcome = EngineFixtures.job().outcome(ofThrown: error)
        let ended =
            switch outcome {
            case .interrupted: "interrupted"
            case .failed: "failed"
            case .succeeded, .challenged: "other"
            }
        #expect(ended == expected)
    }

    @Test func anyErrorOfACancelledAttemptInterruptsIt() async {
        let ended = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return EngineFixtures.job().outcome(ofThrown: Refused())
        }
        #expect(await ended.value == .interrupted)
    }
}
