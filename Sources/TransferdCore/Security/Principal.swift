/// Who a request acts for: the tenant whose resources it may see, through which key.
public struct Principal: Sendable, Equatable {
    public let tenantID: Int64
    public let keyID: String
    /// Admin keys may list across tenants.
    public let admin: Bool

    /// The principal of `--no-auth` (local development): the default tenant, as an admin.
    static let unauthenticated = Principal(tenantID: 1, keyID: "no-auth", admin: true)
}
