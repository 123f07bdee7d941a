import Foundation
import Testing
import TransferdDomain

/// The staged upload's machine over every state and input: a 100-byte file receiving at 40, appending from 40, or
/// complete; an append asked at the offset it stands at or elsewhere, or ended with its bytes kept through 40 (none),
/// 70 (some) or 100 (full).
@Suite struct StagedUploadStateMachineTests {
    enum Start: CaseIterable, CustomTestStringConvertible {
        case receiving, appending, complete

        var machine: StagedUploadStateMachine {
            var file = StagedFile(
                tenantId: 1,
                publicId: "f",
                uploadLength: 100,
                uploadOffset: 40,
                createdAt: Date(timeIntervalSince1970: 0),
                expiresAt: Date(timeIntervalSince1970: 86_400)
            )
            if self == .complete { (file.uploadOffset, file.completedAt) = (100, Date(timeIntervalSince1970: 60)) }
            var machine = StagedUploadStateMachine(file)
            if self == .appending { _ = machine.appendRequested(at: 40) }
            return machine
        }

        var testDescription: String { "\(self)" }
    }

    enum Input: CaseIterable, CustomTestStringConvertible {
        case appendAtItsOffset, appendElsewhere, endedKeepingNothing, endedKeepingSome, endedFull

        func feed(_ machine: inout StagedUploadStateMachine) -> Answer {
            switch self {
            case .appendAtItsOffset: Answer(machine.appendRequested(at: 40))
            case .appendElsewhere: Answer(machine.appendRequested(at: 70))
            case .endedKeepingNothing: Answer(machine.appendEnded(keptThrough: 40))
            case .endedKeepingSome: Answer(machine.appendEnded(keptThrough: 70))
            case .endedFull: Answer(machine.appendEnded(keptThrough: 100))
            }
        }

        var testDescription: String { "\(self)" }
    }

    /// What the machine answered, a request's admission or an end's action, as the cells of one table.
    enum Answer: Equatable {
        case refuse(DomainError)
        case write(from: Int64, upTo: Int64)
        case record(offset: Int64, from: Int64)
        case complete(from: Int64)
        case none

        init(_ admission: StagedUploadStateMachine.Admission) {
            switch admission {
            case .refuse(let refusal): self = .refuse(refusal)
            case .write(let from, let upTo): self = .write(from: from, upTo: upTo)
            }
        }

        init(_ action: StagedUploadStateMachine.Action) {
            switch action {
            case .record(let offset, let from): self = .record(offset: offset, from: from)
            case .complete(let from): self = .complete(from: from)
            case .none: self = .none
            }
        }
    }

    /// Where the machine stands after an input, told by how it answers the next one.
    enum After: Equatable {
        case receiving(at: Int64)
        case appending
        case complete
    }

    static let busy = DomainError.conflict("Another request is appending to file `f`; try again when it has ended.")
    static let full = DomainError.conflict("File `f` is complete; it takes no more bytes.")

    static func expected(_ start: Start, _ input: Input) -> (Answer, After) {
        switch (start, input) {
        case (.receiving, .appendAtItsOffset): (.write(from: 40, upTo: 100), .appending)
        case (.receiving, .appendElsewhere): (.refuse(.conflict("Upload-Offset is 70 but the upload stands at 40.")), .receiving(at: 40))
        case (.receiving, _): (.none, .receiving(at: 40))
        case (.appending, .appendAtItsOffset), (.appending, .appendElsewhere): (.refuse(busy), .appending)
        case (.appending, .endedKeepingNothing): (.none, .receiving(at: 40))
        case (.appending, .endedKeepingSome): (.record(offset: 70, from: 40), .receiving(at: 70))
        case (.appending, .endedFull): (.complete(from: 40), .complete)
        case (.complete, .appendAtItsOffset), (.complete, .appendElsewhere): (.refuse(full), .complete)
        case (.complete, _): (.none, .complete)
        }
    }

    /// Where `machine` stands: an append at 0 is refused as busy (appending), as complete, or as standing elsewhere
    /// (receiving, at the offset the refusal names); at 0 itself it would be let in, which no case here reaches.
    static func standing(_ machine: StagedUploadStateMachine) -> After? {
        var probe = machine
        switch probe.appendRequested(at: 0) {
        case .refuse(busy): return .appending
        case .refuse(full): return .complete
        case .refuse(.conflict(let detail)):
            return Int64(detail.split(separator: " ").last?.dropLast() ?? "").map { .receiving(at: $0) }
        default: return nil
        }
    }

    @Test(arguments: Start.allCases, Input.allCases)
    func everyStateAndInput(start: Start, input: Input) {
        var machine = start.machine
        let action = input.feed(&machine)
        let (expectedAction, expectedAfter) = Self.expected(start, input)
        #expect(action == expectedAction)
        #expect(Self.standing(machine) == expectedAfter)
    }

    @Test func anAppendEndedWithoutBeginningChangesNothing() {
        var machine = Start.receiving.machine
        #expect(machine.appendEnded(keptThrough: 100) == .none)
        #expect(machine.appendRequested(at: 40) == .write(from: 40, upTo: 100))
    }
}
