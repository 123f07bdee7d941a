/// A session's oldest pending delivery, with the tenant whose session it is (the senders are shared across tenants)
/// and its endpoint: its key, and its row when it has one (nil: healthy).
package struct DeliveryHead: Sendable {
    package let delivery: Delivery
    package let tenantID: Int64
    package let endpointKey: String?
    package let endpoint: WebhookEndpoint?

    package init(delivery: Delivery, tenantID: Int64, endpointKey: String? = nil, endpoint: WebhookEndpoint? = nil) {
        self.delivery = delivery
        self.tenantID = tenantID
        self.endpointKey = endpointKey
        self.endpoint = endpoint
    }
}
