/// A session's oldest pending delivery, with the tenant whose session it is (the senders are shared across tenants)
/// and its endpoint: its key, its row when it has one (nil: healthy), and its rate limit (nil: none).
package struct DeliveryHead: Sendable {
    package let delivery: Delivery
    package let tenantID: Int64
    package let endpointKey: String?
    package let endpoint: WebhookEndpoint?
    package let maxDeliveriesPerSecond: Double?

    package init(
        delivery: Delivery,
        tenantID: Int64,
        endpointKey: String? = nil,
        endpoint: WebhookEndpoint? = nil,
        maxDeliveriesPerSecond: Double? = nil
    ) {
        self.delivery = delivery
        self.tenantID = tenantID
        self.endpointKey = endpointKey
        self.endpoint = endpoint
        self.maxDeliveriesPerSecond = maxDeliveriesPerSecond
    }
}
