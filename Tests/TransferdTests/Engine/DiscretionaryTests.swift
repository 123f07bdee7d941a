import Foundation
import Testing
import TransferdDomain
import TransferdTestOrigins

@testable import transferd

/// isDiscretionary: a discretionary session's transfers wait while other sessions' tasks are queued, saying
/// `waitingReason: discretionary`, until the service's discretionary window opens, or its bandwidth schedule goes
/// off-peak; with nothing else waiting they run at once.
@Suite struct DiscretionaryTests {
    /// What opens a minute from now: `--discretionary-window`, or a `--bandwidth-schedule` period without a limit.
    enum Opening: CaseIterable {
        case window, offPeak
    }

    @Test(arguments: Opening.allCases)
    func aDiscretionaryTaskWaitsForItsHoursWhileOthersAreQueued(_ opening: Opening) async throws {
        let clock = ManualClock()
        // A window that opens a minute from now, UTC, for two hours.
        let opens = clock.now.addingTimeInterval(60)
        let format = Date.VerbatimFormatStyle(
            format: "\(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
            timeZone: .gmt,
            calendar: Calendar(identifier: .gregorian)
        )
        let text = "\(opens.formatted(format))-\(opens.addingTimeInterval(7200).formatted(format))"
        let window = try #require(DailyWindow(text, timeZone: .gmt))
        // Outside the off-peak period, a limit no test transfer reaches.
        let schedule = try BandwidthSchedule("\(text)=off, *=1G", timeZone: .gmt)
        try await OriginServer.with { origin in
            try await TestService.with(configure: {
                $0.clock = clock
                switch opening {
                case .window: $0.discretionaryWindow = window
                case .offPeak: $0.bandwidthSchedule = schedule
                }
            }) { api in
                // setup: an urgent session with one transfer under way and one queued behind it (one connection per host)
                try await api.createSession("urgent", configuration: #"{"maximumConnectionsPerHost": 1}"#)
                for _ in 1...2 { _ = try await api.createTask("urgent", url: origin.url("/gated/urgent/200000")) }
                try await waitUntil { try await api.task("urgent", 2).waitingReason == "hostLimit" }
                let bulk = try await api.createSession("bulk", configuration: #"{"discretionary": true}"#)
                _ = try await api.createTask("bulk", url: origin.url("/files/3000"))
                // A later task elsewhere runs to its end: the scheduler has passed over the discretionary one since.
                try await api.createSession("other")
                _ = try await api.createTask("other", url: origin.url("/files/1000"))
                try await api.waitForCompletion("other", 1)

                // verify: held back, in words the client can read
                let held = try await api.task("bulk", 1)
                #expect(bulk.configuration.value1.discretionary == true)
                #expect(held.state == "running" && held.startedAt == nil && held.waitingReason == "discretionary")

                // act: the window opens, or the off-peak period begins
                clock.advance(by: 61)
                let ran = try await api.waitForCompletion("bulk", 1)

                // verify: it ran inside the window, while the urgent task still waited
                #expect(ran.error == nil && ran.countOfBytesReceived == 3000)
                #expect(try await api.task("urgent", 2).waitingReason == "hostLimit")
                origin.open(gate: "urgent")
            }
        }
    }

    @Test func withoutAWindowItWaitsUntilNoLongerDiscretionary() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("urgent", configuration: #"{"maximumConnectionsPerHost": 1}"#)
                for _ in 1...2 { _ = try await api.createTask("urgent", url: origin.url("/gated/patient/200000")) }
                try await waitUntil { try await api.task("urgent", 2).waitingReason == "hostLimit" }
                try await api.createSession("bulk", configuration: #"{"discretionary": true}"#)
                _ = try await api.createTask("bulk", url: origin.url("/files/3000"))
                try await api.createSession("other")
                _ = try await api.createTask("other", url: origin.url("/files/1000"))
                try await api.waitForCompletion("other", 1)
                #expect(try await api.task("bulk", 1).waitingReason == "discretionary")

                // act
                let changed = try await api.send(.PATCH, "/v1/sessions/bulk", json: #"{"discretionary": false}"#)

                // verify
                #expect(try changed.decode(SessionView.self).configuration.value1.discretionary == false)
                #expect(try await api.waitForCompletion("bulk", 1).countOfBytesReceived == 3000)
                origin.open(gate: "patient")
            }
        }
    }

    @Test func withNothingElseWaitingADiscretionarySessionRunsAtOnce() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("alone", configuration: #"{"discretionary": true}"#)
                _ = try await api.createTask("alone", url: origin.url("/files/2000"))
                #expect(try await api.waitForCompletion("alone", 1).countOfBytesReceived == 2000)
            }
        }
    }

    @Test(arguments: ["01:00-06:00", "22:00-06:00", "00:00:30-00:01"])
    func aWindowIsReadAndWrapsPastMidnight(text: String) throws {
        let window = try #require(DailyWindow(text, timeZone: .gmt))
        let midnight = Date(timeIntervalSince1970: 86_400 * 20_000)
        let atThree = midnight.addingTimeInterval(3 * 3600)
        let atTwentyThree = midnight.addingTimeInterval(23 * 3600)
        switch text {
        case "01:00-06:00":
            #expect(window.contains(atThree) && !window.contains(atTwentyThree))
            #expect(window.nextOpening(after: atTwentyThree) == midnight.addingTimeInterval(25 * 3600))
        case "22:00-06:00":
            #expect(window.contains(atThree) && window.contains(atTwentyThree) && !window.contains(midnight.addingTimeInterval(12 * 3600)))
        default:
            #expect(window.contains(midnight.addingTimeInterval(45)) && !window.contains(midnight.addingTimeInterval(60)))
            #expect(window.nextOpening(after: midnight) == midnight.addingTimeInterval(30))
        }
        #expect(window.description == text)
    }

    @Test(arguments: ["", "1:00-06:00", "06:00-06:00", "25:00-06:00", "01:00", "01:00-06:00-07:00"])
    func aBadWindowIsRefused(text: String) {
        #expect(DailyWindow(text) == nil)
    }
}
