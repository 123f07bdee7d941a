import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

/// The dispatcher records a group of subscribers' answers, for many sessions, with the sessions it gives back, in
/// one call (one statement on PostgreSQL). On the suite's database.
@Suite struct AnswerRecordTests {
    @Test func aGroupOfAnswersIsRecordedAndEachSessionKeptOrGivenBack() async throws {
        try await SuiteStore.fresh { store in
            // setup: four sessions leased to "i1"; three with a subscriber and two deliveries pending each, written a
            // second ago (stored times are rounded: one written now could read back as due just after now)
            let now = Date()
            let written = now.addingTimeInterval(-1)
            let sessions = try await store.write { repositories in
                var sessions: [Int64] = []
                for name in ["delivered", "refused", "gone", "idle"] {
                    let session = try await StoredRows.session(name, at: now, repositories)
                    sessions.append(session)
                    #expect(try await repositories.sessions.leaseDeliveries(sessionID: session, owner: "i1", until: now + 60, at: now))
                    guard name != "idle" else { continue }
                    try await StoredRows.subscribe(session, at: now, repositories)
                    let events = (1...2).map {
                        Event(
                            sessionId: session,
                            sequence: 0,
                            taskIdentifier: $0,
                            payload: .taskCreated(StateChange(.suspended)),
                            createdAt: written
                        )
                    }
                    _ = try await repositories.events.append(events)
                }
                return sessions
            }
            let heads = try await store.read { repositories in
                var heads: [Delivery] = []
                for session in sessions.prefix(3) {
                    heads.append(try #require(try await repositories.deliveries.pendingHead(sessionID: session)))
                }
                return heads
            }
            let answers = zip(heads, [204, 500, 410]).map { head, status in
                AnsweredDelivery(
                    head,
                    answer: .answered(status: status, retryAfter: nil),
                    probe: status == 500,
                    reply: "answered \(status)",
                    attemptedAt: now,
                    latency: .milliseconds(3),
                    now: now,
                    policy: DeliveryPolicy()
                )
            }
            let writes = { store.statistics?.statements[.write, default: 0] ?? 0 }

            // act: the three answers recorded, and the idle session given back, together
            let before = writes()
            let outcomes = try await store.write { repositories in
                try await repositories.deliveries.record(answers, releasing: [sessions[3]], leasedTo: "i1", dueBy: now)
            }
            let sent = writes() - before

            // verify: each answer recorded; the delivered one's next delivery is due and its session still leased
            #expect(outcomes.map(\.recorded) == [true, true, true])
            #expect(outcomes.map(\.next?.delivery.sequence) == [heads[0].sequence + 1, nil, nil])
            if store.isShared {
                let content = outcomes[0].next?.content
                #expect(content?.event.taskIdentifier == 2 && content?.sessionIdentifier == "delivered", "read with its content")
                #expect(content?.webhook.url == "http://hook.test/")
            }
            let (stored, leasable, acknowledged, attempts) = try await store.write { repositories in
                var (stored, leasable, acknowledged, attempts): ([Delivery?], [Bool], [Int64?], [[DeliveryAttempt]]) = ([], [], [], [])
                for head in heads { stored.append(try await repositories.deliveries.find(id: head.rowID)) }
                for session in sessions {
                    leasable.append(
                        try await repositories.sessions.leaseDeliveries(sessionID: session, owner: "i2", until: now + 60, at: now)
                    )
                    acknowledged.append(try await repositories.sessions.find(id: session)?.lastAcknowledgedSequence)
                    attempts.append(
                        try await repositories.deliveries.list(sessionID: session, after: 0, status: nil, limit: 10).flatMap(\.1)
                    )
                }
                return (stored, leasable, acknowledged, attempts)
            }
            #expect(stored.map(\.?.status) == [.delivered, .pending, .failed])
            #expect(stored.map(\.?.attemptCount) == [1, 0, 1], "a probe that fails is outside the delivery's schedule")
            #expect(stored[1].map { $0.nextAttemptAt == heads[1].nextAttemptAt } == true, "the refused probe's delivery waits as it did")
            #expect(leasable == [false, true, true, true], "every session but the one with a due delivery is given back")
            #expect(acknowledged == [heads[0].sequence, 0, 0, 0])
            #expect(attempts.map { $0.map(\.reply) } == [["answered 204"], ["answered 500"], ["answered 410"], []])
            #expect(attempts.map { $0.map(\.probe) } == [[false], [true], [false], []])
            if store.isShared { #expect(sent == 3, "BEGIN, the group's statement, COMMIT: \(sent)") }
        }
    }
}
