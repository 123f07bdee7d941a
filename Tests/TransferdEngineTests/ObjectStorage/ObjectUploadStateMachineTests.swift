import Testing
import TransferdDomain
import TransferdEngine

/// The multipart upload's machine over every state and input: none yet, an upload kept without a part (continued at
/// 0), one kept with two parts (continued after them), being created, or finished; a part filled, a creation the
/// task recorded or refused, and the body's end with bytes left after the parts or none. An ended upload stays the
/// machine's (`upload`): the checkpoint after the body's end records it, for an attempt that continues a refused
/// completion.
@Suite struct ObjectUploadStateMachineTests {
    typealias Step = ObjectUploadStateMachine.Step
    typealias Part = ObjectUploadProgress.Part

    static let created = ObjectUploadProgress(uploadId: "new", checksums: true, partSize: 8)
    static let empty = ObjectUploadProgress(uploadId: "empty", checksums: true, partSize: 8)
    static let twoParts = ObjectUploadProgress(
        uploadId: "two",
        checksums: true,
        partSize: 8,
        parts: [Part(number: 1, etag: "a", checksumSHA256: nil, size: 8), Part(number: 2, etag: "b", checksumSHA256: nil, size: 8)]
    )

    enum Start: CaseIterable, CustomTestStringConvertible {
        case none, keptEmpty, keptTwoParts, creating, ended

        var machine: ObjectUploadStateMachine {
            switch self {
            case .none, .creating:
                var machine = ObjectUploadStateMachine.starting(kept: nil, at: 0).machine
                if self == .creating { _ = machine.partFilled() }
                return machine
            case .ended:
                var machine = ObjectUploadStateMachine.starting(kept: twoParts, at: 16).machine
                _ = machine.bodyEnded(restBytes: 3)
                return machine
            case .keptEmpty: return ObjectUploadStateMachine.starting(kept: empty, at: 0).machine
            case .keptTwoParts: return ObjectUploadStateMachine.starting(kept: twoParts, at: 16).machine
            }
        }

        var testDescription: String { "\(self)" }
    }

    enum Input: CaseIterable, CustomTestStringConvertible {
        case partFilled, createdRecorded, createdRefused, bodyEndedWithRest, bodyEndedEmpty

        func feed(_ machine: inout ObjectUploadStateMachine) -> Step {
            switch self {
            case .partFilled: machine.partFilled()
            case .createdRecorded: machine.created(created, recorded: true)
            case .createdRefused: machine.created(created, recorded: false)
            case .bodyEndedWithRest: machine.bodyEnded(restBytes: 3)
            case .bodyEndedEmpty: machine.bodyEnded(restBytes: 0)
            }
        }

        var testDescription: String { "\(self)" }
    }

    /// Where the machine stands, told by its upload and how it would answer a filled part and a recorded creation.
    struct After: Equatable {
        var upload: ObjectUploadProgress?
        var nextFilled: Step
        var nextCreated: Step

        init(_ upload: ObjectUploadProgress?, filled: Step, created: Step) {
            (self.upload, nextFilled, nextCreated) = (upload, filled, created)
        }

        init(_ machine: ObjectUploadStateMachine) {
            var (filled, recorded) = (machine, machine)
            self.init(
                machine.upload,
                filled: filled.partFilled(),
                created: recorded.created(ObjectUploadStateMachineTests.created, recorded: true)
            )
        }
    }

    static let none = After(nil, filled: .create, created: .none)
    static let creating = After(nil, filled: .none, created: .send(number: 1, of: created))
    static let put = After(nil, filled: .none, created: .none)
    static func ended(_ upload: ObjectUploadProgress) -> After { After(upload, filled: .none, created: .none) }

    static func expected(_ start: Start, _ input: Input) -> (Step, After) {
        switch (start, input) {
        case (.none, .partFilled): (.create, creating)
        case (.none, .createdRecorded), (.none, .createdRefused): (.none, none)
        case (.none, .bodyEndedWithRest), (.none, .bodyEndedEmpty): (.put, put)
        case (.keptEmpty, .partFilled): (.send(number: 1, of: empty), After(empty, filled: .send(number: 2, of: empty), created: .none))
        case (.keptEmpty, .createdRecorded), (.keptEmpty, .createdRefused):
            (.none, After(empty, filled: .send(number: 1, of: empty), created: .none))
        case (.keptEmpty, .bodyEndedWithRest), (.keptEmpty, .bodyEndedEmpty): (.complete(lastPart: 1, of: empty), ended(empty))
        case (.keptTwoParts, .partFilled):
            (.send(number: 3, of: twoParts), After(twoParts, filled: .send(number: 4, of: twoParts), created: .none))
        case (.keptTwoParts, .createdRecorded), (.keptTwoParts, .createdRefused):
            (.none, After(twoParts, filled: .send(number: 3, of: twoParts), created: .none))
        case (.keptTwoParts, .bodyEndedWithRest): (.complete(lastPart: 3, of: twoParts), ended(twoParts))
        case (.keptTwoParts, .bodyEndedEmpty): (.complete(lastPart: nil, of: twoParts), ended(twoParts))
        case (.creating, .partFilled), (.creating, .bodyEndedWithRest), (.creating, .bodyEndedEmpty): (.none, creating)
        case (.creating, .createdRecorded):
            (.send(number: 1, of: created), After(created, filled: .send(number: 2, of: created), created: .none))
        case (.creating, .createdRefused): (.abort(created), none)
        case (.ended, _): (.none, ended(twoParts))
        }
    }

    @Test(arguments: Start.allCases, Input.allCases)
    func everyStateAndInput(start: Start, input: Input) {
        var machine = start.machine
        let step = input.feed(&machine)
        let (expectedStep, expectedAfter) = Self.expected(start, input)
        #expect(step == expectedStep)
        #expect(After(machine) == expectedAfter)
    }

    @Test func anAttemptThatStartsOverAbortsAKeptUploadWithPartsAndContinuesOneWithout() {
        let over = ObjectUploadStateMachine.starting(kept: Self.twoParts, at: 0)
        #expect(over.first == .abort(Self.twoParts))
        #expect(After(over.machine) == Self.none)

        let continued = ObjectUploadStateMachine.starting(kept: Self.empty, at: 0)
        #expect(continued.first == .none)
        #expect(continued.machine.upload == Self.empty)
    }

    @Test func thePrefixGrowsOnlyWhenTheGapCloses() {
        var machine = ObjectUploadStateMachine.starting(kept: nil, at: 0).machine
        _ = machine.partFilled()
        _ = machine.created(Self.created, recorded: true)
        _ = machine.partFilled()
        let (first, second) = (
            Part(number: 1, etag: "a", checksumSHA256: nil, size: 8), Part(number: 2, etag: "b", checksumSHA256: nil, size: 8)
        )

        machine.acknowledged(second)
        #expect(machine.upload?.parts == [])
        machine.acknowledged(first)
        #expect(machine.upload?.parts == [first, second])
        #expect(machine.upload?.bytes == 16)
    }
}
