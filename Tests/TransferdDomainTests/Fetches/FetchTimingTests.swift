import Foundation
import Testing
import TransferdDomain

/// When runs fall due: on the anchor's slots, missed slots coalesced into the first one after now, jittered, and
/// moved into the window.
@Suite struct FetchTimingTests {
    static let anchor = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14 22:13:20 UTC

    /// Seconds after the anchor when the run after `now` (seconds after the anchor) falls due, every 60 s.
    static let slots: [(now: Double, due: Double)] = [(0, 60), (1, 60), (59.9, 60), (60, 120), (210, 240), (259_205, 259_260)]

    @Test(arguments: slots)
    func theNextRunIsTheFirstSlotAfterNow(_ now: Double, _ expected: Double) {
        let timing = FetchTiming(interval: 60)
        #expect(
            timing.nextRun(anchor: Self.anchor, after: Self.anchor.addingTimeInterval(now), draw: 0.5)
                == Self.anchor.addingTimeInterval(expected)
        )
    }

    @Test func jitterDelaysUpToItsFractionOfTheInterval() {
        let timing = FetchTiming(interval: 600, jitter: 0.1)
        #expect(timing.nextRun(anchor: Self.anchor, after: Self.anchor, draw: 0) == Self.anchor.addingTimeInterval(600))
        #expect(timing.nextRun(anchor: Self.anchor, after: Self.anchor, draw: 0.5) == Self.anchor.addingTimeInterval(630))
        #expect(timing.nextRun(anchor: Self.anchor, after: Self.anchor, draw: 1) == Self.anchor.addingTimeInterval(660))
        #expect(timing.firstRun(at: Self.anchor, draw: 0.5) == Self.anchor.addingTimeInterval(30))
    }

    @Test func aRunOutsideTheWindowWaitsForItToOpen() throws {
        let window = try #require(DailyWindow("01:00-02:00", timeZone: .utc))
        let timing = FetchTiming(interval: 3600, window: window)
        // 22:13:20 is outside: the window opens at 01:00 the next day.
        let opening = Date(timeIntervalSince1970: 1_700_010_000)  // 2023-11-15 01:00:00 UTC
        #expect(timing.firstRun(at: Self.anchor, draw: 0) == opening)
        #expect(timing.nextRun(anchor: Self.anchor, after: Self.anchor, draw: 0) == opening)
        // Inside the window the moment stands; a slot past its close waits for the next day's opening.
        let inside = opening.addingTimeInterval(600)
        #expect(timing.firstRun(at: inside, draw: 0) == inside)
        #expect(timing.nextRun(anchor: inside, after: inside, draw: 0) == opening.addingTimeInterval(86_400))
    }
}
