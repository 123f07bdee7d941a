import Foundation
import Testing
import TransferdDomain

/// Where a session's log may be trimmed to: from its start only, never past an event written since the cut-off or
/// one whose delivery is pending.
@Suite struct EventLogTrimTests {
    static let cutoff = Date(timeIntervalSince1970: 1_000)

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        /// The ages of the oldest events, as seconds before the cut-off (negative: after it), from sequence 11 on.
        var ages: [Double]
        var firstPending: Int64?
        var expected: Int64
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "nothing in the log", ages: [], firstPending: nil, expected: 10),
        Case(name: "every event old", ages: [30, 20, 10], firstPending: nil, expected: 13),
        Case(name: "up to the first young one", ages: [30, 20, -1, 10], firstPending: nil, expected: 12),
        Case(name: "the first one young", ages: [-5, 30], firstPending: nil, expected: 10),
        Case(name: "written exactly at the cut-off is kept", ages: [30, 0], firstPending: nil, expected: 11),
        Case(name: "up to the first pending delivery", ages: [30, 20, 10], firstPending: 12, expected: 11),
        Case(name: "a pending delivery of the first event", ages: [30, 20], firstPending: 11, expected: 10),
        Case(name: "a pending delivery after the old ones", ages: [30, 20], firstPending: 40, expected: 12),
    ]

    @Test(arguments: cases) func trimsFromTheStartOnly(_ trim: Case) {
        let events = trim.ages.enumerated().map { index, age in
            EventLogTrim.EventAge(sequence: 11 + Int64(index), createdAt: Self.cutoff.addingTimeInterval(-age))
        }
        let through = EventLogTrim.through(events, trimmedThrough: 10, keptSince: Self.cutoff, firstPendingDelivery: trim.firstPending)
        #expect(through == trim.expected)
    }

    /// A log read with a hole (not gap-free from where it was trimmed) is trimmed up to the hole only.
    @Test func stopsAtAHole() {
        let old = Self.cutoff.addingTimeInterval(-60)
        let events = [11, 12, 14].map { EventLogTrim.EventAge(sequence: $0, createdAt: old) }
        #expect(EventLogTrim.through(events, trimmedThrough: 10, keptSince: Self.cutoff, firstPendingDelivery: nil) == 12)
    }

    /// A pass leaves a log alone (no transaction at all) when its first event is young or a pending delivery holds it.
    @Test(
        arguments: [
            (nil, nil, false),  // an empty log
            (-5.0, nil, false),  // the first event young
            (30.0, nil, true),
            (30.0, 11, false),  // its delivery pending
            (30.0, 12, true),  // a later one pending
        ] as [(Double?, Int64?, Bool)]
    )
    func aLogWithNothingToTrimIsLeftAlone(age: Double?, firstPending: Int64?, mayTrim: Bool) {
        let session = HistorySession(
            id: 1,
            tenantID: 1,
            retentionPeriod: 60,
            historyRetention: nil,
            eventsTrimmedThrough: 10,
            oldestEvent: age.map { Self.cutoff.addingTimeInterval(-$0) },
            firstPendingDelivery: firstPending
        )
        #expect(EventLogTrim.mayTrim(session, keptSince: Self.cutoff) == mayTrim)
    }
}
