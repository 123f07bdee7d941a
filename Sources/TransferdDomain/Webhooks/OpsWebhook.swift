/// Where operators are told what happens to webhook endpoints, and the secret that signs it as Standard Webhooks says:
/// the service's (`--ops-webhook`, `--ops-webhook-secret`), or a tenant's own (`transferd tenants ops-webhook`).
package struct OpsWebhook: Codable, Sendable, Equatable {
    package let url: String
    package let secret: WebhookSecret

    package init(url: String, secret: WebhookSecret) {
        self.url = url
        self.secret = secret
    }
}
