/// The headers of a task (its own and its session's) that a redirect to another origin still carries: only those
/// that say nothing secret about the client. `Authorization`, `Cookie`, `Proxy-Authorization`, API keys and any other
/// header are dropped when the scheme, host or port changes, as curl and browsers drop credentials.
package enum CrossOriginHeaders {
    /// Lower-case names of the headers safe to send to any origin.
    package static let safe: Set<String> = [
        "accept", "accept-encoding", "accept-language", "cache-control", "dnt", "pragma", "user-agent",
    ]

    /// Whether the header `name` goes with a request to another origin than the task's own.
    package static func forwards(_ name: String) -> Bool {
        safe.contains(name.lowercased())
    }
}
