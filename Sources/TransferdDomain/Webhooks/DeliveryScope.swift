/// Whose deliveries an operation takes: one session's, or every session's of a tenant.
package enum DeliveryScope: Sendable {
    case session(Int64)
    case tenant(Int64)
}
