/// A session's next delivery, due now, with what it sends when the store read that in the same statement.
package struct DueDelivery: Sendable {
    package let delivery: Delivery
    /// Nil when the store did not read it: the sender reads it (``DeliveryRepository/content(of:)``).
    package let content: DeliveryContent?

    package init(_ delivery: Delivery, content: DeliveryContent?) {
        self.delivery = delivery
        self.content = content
    }
}
