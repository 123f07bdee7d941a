import Foundation
import Testing
import TransferdEngine

/// The scheduler's cues over every state (announced, left work, quiet until when) and input: what the next pass does,
/// and what the cues become.
@Suite struct ClaimCuesTests {
    static let now = Date(timeIntervalSince1970: 1_000_000)
    static let later = now.addingTimeInterval(60)

    /// When the last claim or look found nothing: not at all, until a moment to come, until one past, or until woken.
    enum Quiet: CaseIterable, CustomTestStringConvertible {
        case no, untilLater, untilPast, untilWoken

        var testDescription: String { "quiet \(self)" }
    }

    enum Input: CaseIterable, CustomTestStringConvertible {
        case workAnnounced, claimedLeavingWork, claimedDrained, lookFoundNothing, pass

        var testDescription: String {
            switch self {
            case .workAnnounced: "work announced"
            case .claimedLeavingWork: "a claim left work"
            case .claimedDrained: "a claim left none until later"
            case .lookFoundNothing: "a look found none until later"
            case .pass: "a pass"
            }
        }
    }

    /// The cues set to the state given.
    private static func cues(announced: Bool, leftWork: Bool, quiet: Quiet) -> ClaimCues {
        let cues = ClaimCues()
        _ = cues.pass(at: now)
        switch quiet {
        case .no: cues.claimed(leavingWork: true, nextDue: nil)
        case .untilLater: cues.claimed(leavingWork: false, nextDue: later)
        case .untilPast: cues.claimed(leavingWork: false, nextDue: now.addingTimeInterval(-1))
        case .untilWoken: cues.claimed(leavingWork: false, nextDue: nil)
        }
        if !leftWork, quiet == .no {
            cues.claimed(leavingWork: false, nextDue: now.addingTimeInterval(-1))
            _ = cues.pass(at: now)  // the look that ends the quiet
        }
        if leftWork, quiet != .no { cues.claimed(leavingWork: true, nextDue: nil) }
        if announced { cues.workAnnounced() }
        return cues
    }

    /// What a pass does in a state: claims while work was announced or left, rests while quiet and nothing is due,
    /// and looks otherwise.
    private static func expectedPass(announced: Bool, leftWork: Bool, quiet: Quiet) -> ClaimCues.Pass {
        if announced || leftWork { return .claim }
        switch quiet {
        case .untilLater: return .rest(until: later)
        case .untilWoken: return .rest(until: nil)
        case .no, .untilPast: return .look
        }
    }

    @Test func aNewSchedulerClaimsAtOnceThenRestsOnceAClaimLeftNothing() {
        let cues = ClaimCues()
        #expect(cues.pass(at: Self.now) == .claim)
        #expect(cues.pass(at: Self.now) == .claim, "nothing claimed yet: whatever is queued is left")
        cues.claimed(leavingWork: false, nextDue: Self.later)
        #expect(cues.pass(at: Self.now) == .rest(until: Self.later), "a worker freed: nothing waits for it")
        #expect(cues.pass(at: Self.later) == .look, "something fell due")
        cues.foundNothing(until: nil)
        #expect(cues.pass(at: Self.later) == .rest(until: nil))
        cues.workAnnounced()
        #expect(cues.pass(at: Self.later) == .claim)
    }

    @Test(arguments: [false, true], [false, true])
    func everyStateAndInput(announced: Bool, leftWork: Bool) {
        for quiet in Quiet.allCases where !(leftWork && quiet != .no) {
            for input in Input.allCases {
                let cues = Self.cues(announced: announced, leftWork: leftWork, quiet: quiet)
                var (expectAnnounced, expectLeftWork, expectQuiet) = (announced, leftWork, quiet)
                switch input {
                case .workAnnounced:
                    cues.workAnnounced()
                    expectAnnounced = true
                case .claimedLeavingWork:
                    cues.claimed(leavingWork: true, nextDue: nil)
                    (expectLeftWork, expectQuiet) = (true, .no)
                case .claimedDrained:
                    cues.claimed(leavingWork: false, nextDue: Self.later)
                    (expectLeftWork, expectQuiet) = (false, .untilLater)
                case .lookFoundNothing:
                    cues.foundNothing(until: Self.later)
                    expectQuiet = .untilLater
                case .pass:
                    let pass = Self.expectedPass(announced: announced, leftWork: leftWork, quiet: quiet)
                    #expect(cues.pass(at: Self.now) == pass, "\(input) from (\(announced), \(leftWork), \(quiet))")
                    if pass == .claim { expectAnnounced = false }
                    if pass == .look { expectQuiet = .no }
                }
                let state = "\(input) from (\(announced), \(leftWork), \(quiet))"
                let next = Self.expectedPass(announced: expectAnnounced, leftWork: expectLeftWork, quiet: expectQuiet)
                #expect(cues.pass(at: Self.now) == next, "\(state)")
                // A claim takes the announcement, and a look ends the quiet.
                let after = Self.expectedPass(
                    announced: false,
                    leftWork: expectLeftWork,
                    quiet: next == .look ? .no : expectQuiet
                )
                #expect(cues.pass(at: Self.now) == after, "\(state), a pass later")
            }
        }
    }
}
