import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// What ``DeliveryStateMachine`` does alike to many deliveries (``DeliveryChange``), written by storage in one
/// statement, leaves each delivery it reaches as the machine leaves one, and the others as they were. On the suite's
/// database.
@Suite struct DeliveryChangeTests {
    /// Whole milliseconds, as stored times are.
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func abandoningFailsEveryPendingDeliveryOfTheSessionAndNoOther() async throws {
        try await Self.withDeliveries(count: 3) { store, deliveries in
            let delivered = try await Self.finish(deliveries[0], as: .delivered, store)
            let change = DeliveryStateMachine.abandoned(reason: "The webhook was removed.", at: Self.now + 5)

            try await store.write { try await $0.deliveries.apply(change, sessionID: deliveries[0].sessionId) }

            let stored = try await Self.stored(deliveries, store)
            Self.expectSame(stored[0], delivered)
            for (before, after) in zip(deliveries.dropFirst(), stored.dropFirst()) { Self.expectSame(after, change.applied(to: before)) }
        }
    }

    @Test func anEndpointsRecoveryMakesDueNowOnlyTheDeliveriesDueLater() async throws {
        try await Self.withDeliveries(count: 2) { store, deliveries in
            let session = deliveries[0].sessionId
            let key = try #require(try await store.read { try await $0.webhooks.find(sessionID: session)?.endpointKey })
            var waiting = deliveries[0]
            waiting.nextAttemptAt = Self.now + 300
            try await store.write { [waiting] repositories in _ = try await repositories.deliveries.update(waiting, ifStatus: .pending) }
            let change = DeliveryStateMachine.endpointRecovered(at: Self.now + 5)

            let madeDue = try await store.write { try await $0.deliveries.makeHeadsDue(endpointKey: key, change) }

            let stored = try await Self.stored(deliveries, store)
            #expect(madeDue == 1, "only the delivery due after the recovery is written")
            Self.expectSame(stored[0], change.applied(to: waiting))
            #expect(stored[0].nextAttemptAt == Self.now + 5)
            Self.expectSame(stored[1], deliveries[1])
        }
    }

    @Test func aRecoveryPutsBackTheDeadLetteredDeliveriesAsARetryDoes() async throws {
        try await Self.withDeliveries(count: 2) { store, deliveries in
            let failed = try await Self.finish(deliveries[0], as: .failed, store)
            let change = DeliveryStateMachine.retried(from: .failed, at: Self.now + 5)

            let sessions = try await store.write { repositories in
                try await repositories.deliveries.recoverFailed(.session(deliveries[0].sessionId), since: Self.now - 60, change)
            }

            let stored = try await Self.stored(deliveries, store)
            #expect(sessions == [deliveries[0].sessionId])
            Self.expectSame(stored[0], change.applied(to: failed))
            Self.expectSame(stored[1], deliveries[1])
        }
    }

    @Test func aLaterProgressEventSupersedesTheProgressBeforeItButTheHead() async throws {
        try await Self.withDeliveries(count: 3, type: .progress) { store, deliveries in
            let stored = try await Self.stored(deliveries, store)

            Self.expectSame(stored[0], deliveries[0])
            Self.expectSame(stored[1], DeliveryStateMachine.superseded(at: deliveries[2].createdAt).applied(to: deliveries[1]))
            #expect(stored[1].status == .coalesced)
            Self.expectSame(stored[2], deliveries[2])
        }
    }

    enum EventKind { case created, progress }

    /// A session with a subscriber and `count` events of one task, a second apart, each with its
    /// delivery; `body` gets the deliveries as they were queued, before any was superseded.
    static func withDeliveries(
        count: Int,
        type: EventKind = .created,
        _ body: (any Store, [Delivery]) async throws -> Void
    ) async throws {
        try await SuiteStore.fresh { store in
            let deliveries = try await store.write { repositories in
                let session = try await StoredRows.session("changes", at: now, repositories)
                try await StoredRows.subscribe(session, at: now, repositories)
                var queued: [Delivery] = []
                for index in 0..<count {
                    let payload: EventPayload =
                        switch type {
                        case .created: .taskCreated(StateChange(.suspended))
                        case .progress:
                            .taskProgress(DownloadProgress(bytesWritten: 1, totalBytesWritten: Int64(index), totalBytesExpectedToWrite: 10))
                        }
                    let event = Event(sessionId: session, sequence: 0, taskIdentifier: 1, payload: payload, createdAt: now + Double(index))
                    let appended = try await repositories.events.append([event])[0].event
                    queued.append(try #require(try await repositories.deliveries.find(eventID: appended.rowID)))
                }
                return queued
            }
            try await body(store, deliveries)
        }
    }

    /// `delivery` finished with `status` as an answer would leave it; returns it so.
    static func finish(_ delivery: Delivery, as status: Delivery.Status, _ store: any Store) async throws -> Delivery {
        var finished = delivery
        (finished.status, finished.attemptCount, finished.completedAt) = (status, 1, now + 1)
        finished.lastError = status == .failed ? "refused" : nil
        try await store.write { [finished] repositories in _ = try await repositories.deliveries.update(finished, ifStatus: .pending) }
        return finished
    }

    static func stored(_ deliveries: [Delivery], _ store: any Store) async throws -> [Delivery] {
        try await store.read { repositories in
            var stored: [Delivery] = []
            for delivery in deliveries { stored.append(try #require(try await repositories.deliveries.find(id: delivery.rowID))) }
            return stored
        }
    }

    /// The columns a change may write are the same.
    static func expectSame(_ stored: Delivery, _ expected: Delivery, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(stored.status == expected.status, sourceLocation: sourceLocation)
        #expect(stored.attemptCount == expected.attemptCount, sourceLocation: sourceLocation)
        #expect(stored.nextAttemptAt == expected.nextAttemptAt, sourceLocation: sourceLocation)
        #expect(stored.completedAt == expected.completedAt, sourceLocation: sourceLocation)
        #expect(stored.lastError == expected.lastError, sourceLocation: sourceLocation)
    }
}
