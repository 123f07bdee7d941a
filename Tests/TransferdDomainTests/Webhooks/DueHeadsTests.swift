import Foundation
import Testing
import TransferdDomain

/// Which heads go now: by their own schedule whatever their endpoint's health, plus one probe per failing endpoint
/// whose probe is due.
@Suite struct DueHeadsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func head(_ session: Int64, dueIn seconds: TimeInterval, endpoint: EndpointHealth?) -> DeliveryHead {
        let delivery = Delivery(
            id: session,
            sessionId: session,
            eventId: session,
            sequence: 1,
            eventType: .taskCreated,
            messageId: "msg_\(session)",
            status: .pending,
            attemptCount: 1,
            nextAttemptAt: now + seconds,
            createdAt: now
        )
        let key = "e\(session / 10)"
        return DeliveryHead(
            delivery: delivery,
            tenantID: 1,
            endpointKey: key,
            endpoint: endpoint.map { WebhookEndpoint(key: key, tenantId: 1, health: $0, updatedAt: now) }
        )
    }

    static func failing(probeIn seconds: TimeInterval) -> EndpointHealth {
        .failing(EndpointHealth.Failure(since: now - 60, failedProbes: 2, nextProbeAt: now + seconds))
    }

    @Test func aHealthyEndpointsHeadsGoWhenDue() {
        let due = DueHeads([Self.head(1, dueIn: -1, endpoint: nil), Self.head(2, dueIn: 5, endpoint: .healthy)], now: Self.now)

        #expect(due.picks.map(\.head.delivery.sessionId) == [1])
        #expect(due.picks.map(\.probe) == [false])
        #expect(due.nextDue == Self.now + 5)
        #expect(due.catchingUp.isEmpty)
    }

    @Test func aFailingEndpointSendsItsDueRetriesAndOneProbe() {
        // sessions 10–13 share endpoint e1, whose probe is due; 20 is on e2, whose probe is in 8 s
        let heads = [
            Self.head(10, dueIn: -1, endpoint: Self.failing(probeIn: -1)),
            Self.head(11, dueIn: 300, endpoint: Self.failing(probeIn: -1)),
            Self.head(12, dueIn: 1800, endpoint: Self.failing(probeIn: -1)),
            Self.head(20, dueIn: 600, endpoint: Self.failing(probeIn: 8)),
        ]

        let due = DueHeads(heads, now: Self.now)

        #expect(due.picks.map(\.head.delivery.sessionId) == [10, 11])
        #expect(due.picks.map(\.probe) == [false, true], "one probe for e1, the next head to fall due")
        #expect(due.nextDue == Self.now + 8, "e2's probe")
    }

    @Test func aProbeOutIsNotSentAgainUntilItsClaimLapses() {
        let failure = EndpointHealth.Failure(since: Self.now - 60, failedProbes: 2, nextProbeAt: Self.now - 5)
        let out = DueHeads([Self.head(10, dueIn: 300, endpoint: .probing(failure, until: Self.now + 20))], now: Self.now)
        let lapsed = DueHeads([Self.head(10, dueIn: 300, endpoint: .probing(failure, until: Self.now - 1))], now: Self.now)

        #expect(out.picks.isEmpty && out.nextDue == Self.now + 20)
        #expect(lapsed.picks.map(\.probe) == [true])
    }

    @Test func anEndpointCatchingUpIsNamedOnceAndADisabledOneSendsNothing() {
        let heads = [
            Self.head(10, dueIn: 300, endpoint: .catchingUp),
            Self.head(11, dueIn: 300, endpoint: .catchingUp),
            Self.head(20, dueIn: -1, endpoint: .disabled(at: Self.now, reason: "gone")),
        ]

        let due = DueHeads(heads, now: Self.now)

        #expect(due.catchingUp == ["e1"])
        #expect(due.picks.isEmpty)
    }
}
