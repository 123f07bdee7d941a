import Testing
import TransferdEngine

/// The scheduler's cues over every (announced, left work) state and input: whether a pass claims at once, and what
/// the cues become.
@Suite struct ClaimCuesTests {
    enum Input: CaseIterable, CustomTestStringConvertible {
        case workAnnounced, claimedLeavingWork, claimedDrained, pass

        var testDescription: String {
            switch self {
            case .workAnnounced: "work announced"
            case .claimedLeavingWork: "a claim left work"
            case .claimedDrained: "a claim left none"
            case .pass: "a pass"
            }
        }
    }

    /// The cues set to (announced, left work), read back by two passes: the first takes the announcement.
    private static func cues(announced: Bool, leftWork: Bool) -> ClaimCues {
        let cues = ClaimCues()
        _ = cues.claimsAtOnce()
        cues.claimed(leavingWork: leftWork)
        if announced { cues.workAnnounced() }
        return cues
    }

    @Test func aNewSchedulerClaimsAtOnceThenAsksOnceAClaimLeftNothing() {
        let cues = ClaimCues()
        #expect(cues.claimsAtOnce())
        #expect(cues.claimsAtOnce(), "nothing claimed yet: whatever is queued is left")
        cues.claimed(leavingWork: false)
        #expect(!cues.claimsAtOnce())
    }

    @Test(arguments: [false, true], [false, true])
    func everyStateAndInput(announced: Bool, leftWork: Bool) {
        for input in Input.allCases {
            let cues = Self.cues(announced: announced, leftWork: leftWork)
            var (expectAnnounced, expectLeftWork) = (announced, leftWork)
            switch input {
            case .workAnnounced:
                cues.workAnnounced()
                expectAnnounced = true
            case .claimedLeavingWork:
                cues.claimed(leavingWork: true)
                expectLeftWork = true
            case .claimedDrained:
                cues.claimed(leavingWork: false)
                expectLeftWork = false
            case .pass:
                #expect(cues.claimsAtOnce() == (announced || leftWork), "\(input) from (\(announced), \(leftWork))")
                expectAnnounced = false
            }
            // The next pass claims at once when either cue holds, and takes the announcement; the one after it only
            // while the last claim left work.
            #expect(cues.claimsAtOnce() == (expectAnnounced || expectLeftWork), "\(input) from (\(announced), \(leftWork))")
            #expect(cues.claimsAtOnce() == expectLeftWork, "\(input) from (\(announced), \(leftWork)), a pass later")
        }
    }
}
