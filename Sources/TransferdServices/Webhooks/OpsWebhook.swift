import TransferdDomain

/// Where the service tells its operators what happens to webhook endpoints (`--ops-webhook`), and the secret that
/// signs it as Standard Webhooks says (`--ops-webhook-secret`).
package struct OpsWebhook: Sendable {
    package let url: String
    package let secret: WebhookSecret

    package init(url: String, secret: WebhookSecret) {
        self.url = url
        self.secret = secret
    }
}
