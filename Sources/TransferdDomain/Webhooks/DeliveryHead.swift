/// A session's oldest pending delivery, with the tenant whose session it is: the senders are shared across tenants.
package struct DeliveryHead: Sendable {
    package let delivery: Delivery
    package let tenantID: Int64

    package init(delivery: Delivery, tenantID: Int64) {
        self.delivery = delivery
        self.tenantID = tenantID
    }
}
