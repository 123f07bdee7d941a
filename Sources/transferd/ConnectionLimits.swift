/// How the HTTP server bounds its clients' connections, so that none can be held open for nothing.
struct ConnectionLimits: Sendable {
    /// The longest a request head may take to arrive in full after its first byte (slowloris).
    var headerTimeout: Duration = .seconds(10)
    /// The longest a connection stays open without a byte: between requests, or while a body stalls.
    var idleTimeout: Duration = .seconds(60)
    /// Connections served at once; further ones wait in the listen queue until one closes.
    var maximumConnections: Int = 4096
}
