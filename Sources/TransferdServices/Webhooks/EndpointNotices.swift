import Foundation
import Logging
import ServiceLifecycle
import TransferdDomain
import TransferdEngine
import TransferdJSON

/// Tells what disabling an endpoint owes (``EndpointNotice``): `webhook.disabled` in the log of every session
/// pointing at it, once, in one transaction with marking it told; then the operational webhook, the tenant's own or
/// else the service's, if one is set, at least once, retried on the delivery policy's schedule. Across instances, a notice is logged by whichever takes its
/// row first, and the operational webhook's attempt is claimed by moving its due time past the attempt's deadline.
package struct EndpointNotices: Service {
    let store: any Store
    let eventLog: EventLog
    let ops: OpsWebhook?
    let sender: WebhookSender
    let policy: DeliveryPolicy
    let loop: WakeUpLoop

    package init(
        store: any Store,
        eventLog: EventLog,
        ops: OpsWebhook?,
        destinations: DestinationGuard,
        policy: DeliveryPolicy,
        loop: WakeUpLoop
    ) {
        self.store = store
        self.eventLog = eventLog
        self.ops = ops
        self.sender = WebhookSender(destinations: destinations, timeout: policy.timeout, clock: loop.clock)
        self.policy = policy
        self.loop = loop
    }

    var clock: any WallClock { loop.clock }

    package func run() async throws {
        await loop.run("tell of disabled webhook endpoints") {
            var next: Date?
            for notice in try await store.lookup({ try await $0.notices.open(limit: 100) }) {
                if !notice.logged { try await log(notice.rowID) }
                let due = try await tellOperators(notice.rowID)
                next = [next, due].compactMap { $0 }.min()
            }
            return next
        }
    }

    /// Writes `webhook.disabled` in the log of every session pointing at the notice's endpoint, unless it was.
    private func log(_ id: Int64) async throws {
        try await store.write { repositories in
            guard var notice = try await repositories.notices.find(id: id), !notice.logged else { return }
            for subscriber in try await repositories.webhooks.subscribers(endpointKey: notice.endpointKey) {
                _ = try await eventLog.append(
                    repositories,
                    sessionID: subscriber.sessionID,
                    .webhookDisabled(WebhookDisabled(reason: notice.reason))
                )
            }
            notice.logged = true
            try await repositories.notices.update(notice)
        }
    }

    /// Sends the notice to the operational webhook when its attempt is due; returns when the next one is.
    private func tellOperators(_ id: Int64) async throws -> Date? {
        let now = clock.now
        let claimed = try await store.write { repositories -> (EndpointNotice, OpsWebhook, String, [String], String?)? in
            guard var notice = try await repositories.notices.find(id: id), let due = notice.opsNextAttemptAt, due <= now else {
                return nil
            }
            guard let ops = try await repositories.tenants.opsWebhook(tenantID: notice.tenantId) ?? ops else {
                notice.opsNextAttemptAt = nil
                try await repositories.notices.update(notice)
                return nil
            }
            notice.opsNextAttemptAt = now.addingTimeInterval((policy.timeout + .seconds(5)).timeInterval)
            try await repositories.notices.update(notice)
            let subscribers = try await repositories.webhooks.subscribers(endpointKey: notice.endpointKey)
            let tenant = try await repositories.tenants.standing(id: notice.tenantId)?.name
            return (notice, ops, subscribers.first.map { Redaction.url($0.url) } ?? "", subscribers.map(\.identifier), tenant)
        }
        guard let (notice, ops, url, sessions, tenant) = claimed else {
            return try await store.lookup { try await $0.notices.find(id: id)?.opsNextAttemptAt }
        }
        let body = try JSONCoding.encoder.encode(
            OpsNotice(timestamp: notice.createdAt, data: .init(tenant: tenant ?? "", url: url, reason: notice.reason, sessions: sessions))
        )
        guard let exchange = await sender.post(Data(body), to: ops.url, messageID: "ntc_\(id)", secrets: [ops.secret], at: now) else {
            return nil
        }
        return try await store.write { repositories in
            guard var told = try await repositories.notices.find(id: id) else { return nil }
            told.opsAttempts += 1
            if exchange.answer.status.map({ (200..<300).contains($0) }) == true {
                (told.opsNextAttemptAt, told.opsLastError) = (nil, nil)
            } else {
                told.opsLastError = exchange.answer.error
                told.opsNextAttemptAt = policy.delay(afterFailedAttempts: told.opsAttempts, retryAfter: exchange.answer.retryAfter)
                    .map { clock.now.addingTimeInterval($0.timeInterval) }
                if told.opsNextAttemptAt == nil {
                    loop.logger.error(
                        "the operational webhook refused a notice; giving up",
                        metadata: ["error": "\(told.opsLastError ?? "")"]
                    )
                }
            }
            try await repositories.notices.update(told)
            return told.opsNextAttemptAt
        }
    }
}

/// The body of an operational notice: `{"type": "webhook.disabled", "timestamp", "data": {tenant, url, reason,
/// sessions}}`, the URL without its password.
struct OpsNotice: Encodable {
    struct Details: Encodable {
        var tenant: String
        var url: String
        var reason: String
        var sessions: [String]
    }

    var type = EventType.webhookDisabled
    var timestamp: Date
    var data: Details
}
