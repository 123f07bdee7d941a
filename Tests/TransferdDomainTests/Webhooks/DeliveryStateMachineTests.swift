import Foundation
import Testing
import TransferdDomain

/// The delivery state machine over every (state, input) pair, and what an answer tells the delivery's endpoint.
@Suite struct DeliveryStateMachineTests {
    /// The machine's states, with a pending delivery split by whether its schedule has an attempt left.
    enum Start: CaseIterable, CustomTestStringConvertible {
        case pending, pendingOnItsLastAttempt, delivered, failed, coalesced

        var delivery: Delivery {
            let (status, attempts): (Delivery.Status, Int) =
                switch self {
                case .pending: (.pending, 1)
                case .pendingOnItsLastAttempt: (.pending, 7)
                case .delivered: (.delivered, 1)
                case .failed: (.failed, 8)
                case .coalesced: (.coalesced, 0)
                }
            return Delivery(
                id: 9,
                sessionId: 1,
                eventId: 2,
                sequence: 3,
                eventType: .taskCreated,
                messageId: "msg_1",
                status: status,
                attemptCount: attempts,
                nextAttemptAt: later,
                lastError: status == .failed ? "refused" : nil,
                createdAt: now,
                completedAt: status == .pending ? nil : now
            )
        }

        var testDescription: String { "\(self)" }
    }

    enum Input: CaseIterable, CustomTestStringConvertible {
        case acknowledged, gone, serverError, busyWithRetryAfter, noAnswer, probeFailed, probeAcknowledged
        case endpointRecovered, retried, superseded, abandoned

        var input: DeliveryStateMachine.Input {
            switch self {
            case .acknowledged: .answered(.answered(status: 204, retryAfter: nil), probe: false)
            case .gone: .answered(.answered(status: 410, retryAfter: nil), probe: false)
            case .serverError: .answered(.answered(status: 500, retryAfter: nil), probe: false)
            case .busyWithRetryAfter: .answered(.answered(status: 503, retryAfter: .seconds(3600)), probe: false)
            case .noAnswer: .answered(.failed("refused"), probe: false)
            case .probeFailed: .answered(.answered(status: 502, retryAfter: nil), probe: true)
            case .probeAcknowledged: .answered(.answered(status: 200, retryAfter: nil), probe: true)
            case .endpointRecovered: .endpointRecovered
            case .retried: .retried
            case .superseded: .superseded
            case .abandoned: .abandoned(reason: "The webhook was removed.")
            }
        }

        var testDescription: String { "\(self)" }
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let later = now + 300
    /// Svix's schedule without jitter: the second failed attempt waits 5 min, the eighth is the last.
    static let policy = DeliveryPolicy(jitter: 0)

    /// What each pair must give: the delivery's status, attempts, next attempt and error, and the action; nil where
    /// the input is refused.
    static func expected(_ start: Start, _ input: Input) -> (Delivery.Status, Int, Date, String?, DeliveryStateMachine.Action)? {
        let delivery = start.delivery
        let attempts = delivery.attemptCount
        let gone = "The subscriber answered 410 Gone; the webhook is disabled."
        switch (start, input) {
        case (.pending, .retried), (.pendingOnItsLastAttempt, .retried): return nil
        case (.delivered, .retried), (.failed, .retried), (.coalesced, .retried): return (.pending, 0, now, delivery.lastError, .sendNow)
        case (.delivered, _), (.failed, _), (.coalesced, _):
            return (delivery.status, attempts, later, delivery.lastError, .none)

        case (_, .acknowledged), (_, .probeAcknowledged): return (.delivered, attempts + 1, later, nil, .acknowledge)
        case (_, .gone): return (.failed, attempts + 1, later, gone, .deadLetter(reason: gone))
        case (.pendingOnItsLastAttempt, .serverError):
            return (.failed, 8, later, "The subscriber answered 500.", .deadLetter(reason: "The subscriber answered 500."))
        case (.pendingOnItsLastAttempt, .busyWithRetryAfter):
            return (.failed, 8, later, "The subscriber answered 503.", .deadLetter(reason: "The subscriber answered 503."))
        case (.pendingOnItsLastAttempt, .noAnswer): return (.failed, 8, later, "refused", .deadLetter(reason: "refused"))
        case (_, .serverError): return (.pending, 2, now + 300, "The subscriber answered 500.", .retry(at: now + 300))
        case (_, .busyWithRetryAfter): return (.pending, 2, now + 3600, "The subscriber answered 503.", .retry(at: now + 3600))
        case (_, .noAnswer): return (.pending, 2, now + 300, "refused", .retry(at: now + 300))
        case (_, .probeFailed): return (.pending, attempts, later, "The subscriber answered 502.", .wait)
        case (_, .endpointRecovered): return (.pending, attempts, now, nil, .sendNow)
        case (_, .superseded): return (.coalesced, attempts, later, nil, .coalesce)
        case (_, .abandoned): return (.failed, attempts, later, "The webhook was removed.", .deadLetter(reason: "The webhook was removed."))
        }
    }

    @Test(arguments: Start.allCases, Input.allCases)
    func transition(_ start: Start, _ input: Input) {
        var machine = DeliveryStateMachine(start.delivery, policy: Self.policy)

        let action = try? machine.handle(input.input, at: Self.now)

        guard let (status, attempts, next, error, expectedAction) = Self.expected(start, input) else {
            #expect(throws: DeliveryStateMachine.IllegalTransition.self) { try machine.handle(input.input, at: Self.now) }
            return
        }
        let delivery = machine.delivery
        #expect(action == expectedAction)
        #expect(delivery.status == status)
        #expect(delivery.attemptCount == attempts)
        #expect(delivery.nextAttemptAt == next)
        #expect(delivery.lastError == error)
        #expect((delivery.completedAt != nil) == (status != .pending))
    }

    /// What an answer tells its endpoint: a 2xx from a healthy endpoint tells it nothing new.
    @Test(
        arguments: [
            (DeliveryAnswer.answered(status: 200, retryAfter: nil), WebhookSubscription.State.healthy, false, nil),
            (.answered(status: 200, retryAfter: nil), .failing, false, .acknowledged),
            (.answered(status: 204, retryAfter: nil), .probing, true, .acknowledged),
            (.answered(status: 410, retryAfter: nil), .healthy, false, .gone),
            (.answered(status: 429, retryAfter: .seconds(2)), .healthy, false, .failed(retryAfter: .seconds(2), probe: false)),
            (.failed("refused"), .failing, true, .failed(retryAfter: nil, probe: true)),
        ] as [(DeliveryAnswer, WebhookSubscription.State, Bool, EndpointHealthMachine.Input?)]
    )
    func anAnswerTellsItsEndpoint(
        _ answer: DeliveryAnswer,
        _ state: WebhookSubscription.State,
        _ probe: Bool,
        _ input: EndpointHealthMachine.Input?
    ) {
        let answered = AnsweredDelivery(
            Start.pending.delivery,
            answer: answer,
            probe: probe,
            reply: "ok",
            endpoint: (key: "e1", tenantID: 4, state: state),
            attemptedAt: Self.now,
            latency: .milliseconds(12),
            now: Self.now,
            policy: Self.policy
        )

        #expect(answered.endpoint?.input == input)
        #expect(answered.endpoint.map { $0.key == "e1" && $0.tenantID == 4 && $0.error == answer.error } ?? true)
        #expect(answered.attempt.deliveryId == 9 && answered.attempt.latencyMs == 12 && answered.attempt.probe == probe)
        #expect(answered.attempt.statusCode == answer.status && answered.attempt.reply == "ok")
    }
}
