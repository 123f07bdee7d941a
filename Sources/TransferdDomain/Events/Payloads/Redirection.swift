/// `task.redirected` (willPerformHTTPRedirection): the redirect's status, the URL that answered it, the URL it
/// leads to, and whether the transfer went on there (the redirect policy's answer).
package struct Redirection: Codable, Sendable, Equatable {
    package var statusCode: Int
    package var fromURL: String
    package var toURL: String
    package var followed: Bool

    /// The URLs as the API shows them: credentials left out.
    package init(statusCode: Int, from: String, to: String, followed: Bool) {
        self.statusCode = statusCode
        fromURL = Redaction.url(from)
        toURL = Redaction.url(to)
        self.followed = followed
    }
}
