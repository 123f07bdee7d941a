/// What a request proved whom it acts for with, as `AuthenticationMiddleware` found it.
package enum Credential: Sendable, Equatable {
    /// `Authorization: Bearer <API key>` (or `--no-auth`, loopback only): it opens everything its key may.
    case apiKey
    /// A signed link the dashboard handed out for one path, for a few minutes (``ContentLinks``).
    case signedLink
    /// A dashboard session's cookie: it reads pages, lists and streams, and never opens content
    /// (``ContentResponder``), so that a page among content cannot act with a signed-in operator's rights.
    case dashboardCookie
}
