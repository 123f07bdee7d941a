/// Who a request acts for: the tenant whose resources it may see, through which key.
package struct Principal: Sendable, Equatable {
    package let tenantID: Int64
    package let keyID: String
    /// Admin keys may list across tenants.
    package let admin: Bool

    /// The principal of `--no-auth` (local development): the default tenant, as an admin.
    package static let unauthenticated = Principal(tenantID: 1, keyID: "no-auth", admin: true)

    package init(
        tenantID: Int64,
        keyID: String,
        admin: Bool
    ) {
        self.tenantID = tenantID
        self.keyID = keyID
        self.admin = admin
    }
}
