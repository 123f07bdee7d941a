import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import TransferdDomain

/// Lets transfers and webhooks connect only where the `DestinationPolicy` permits; the one check every request
/// passes (a task's first request and each redirect hop, uploads, webhooks, proxies). It spells the host one way
/// (`Destination`), resolves it itself, refuses it when any of its addresses is not permitted, and sends the request
/// through a client pinned to the vetted address (`dnsOverride`, keyed by that same spelling): the connection goes to
/// exactly that address and nothing resolves the name again, so a second DNS answer (rebinding) cannot slip a private
/// one in, while the Host header, SNI and the certificate check keep the name. Through a session's proxy, the proxy's
/// address is pinned the same way, and the proxy is asked to reach the target's vetted address.
package final class DestinationGuard: Sendable {
    /// Pinned clients kept at most; the oldest is shut down to make room.
    package static let pinnedLimit = 64

    package let policy: DestinationPolicy
    /// The client for URLs whose host is an address already.
    package let base: HTTPClient
    private let configuration: HTTPClient.Configuration
    private let pinned = Mutex<[(key: String, client: HTTPClient, serial: Int)]>([])
    /// The relays to https:// proxies, under their pinned client's key.
    private let relays = Mutex<[String: HTTPSProxyRelay]>([:])
    /// The serial of `base`.
    private let baseSerial = DestinationGuard.nextSerial()
    /// Numbers every client of the process, for request metrics to tell their connections apart.
    private static let serials = Atomic<Int>(0)
    /// Evicted pinned clients, for the `HTTPClientService` to shut down once the transfers using them are done.
    package let retired: AsyncStream<HTTPClient>
    private let retiring: AsyncStream<HTTPClient>.Continuation

    /// Where a refusal's detail goes (which addresses a name resolved to), for the operator, never to the tenant.
    private let logger: Logger

    package init(policy: DestinationPolicy, configuration: HTTPClient.Configuration, logger: Logger = Logger(label: "transferd")) {
        self.policy = policy
        self.logger = logger
        self.configuration = configuration
        base = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        (retired, retiring) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    /// No more clients are retired through `retired`: the evicted ones wait in the pinned list for `shutdown()`.
    package func stopRetiring() {
        retiring.finish()
    }

    /// How a request reaches its destination: the address and port it connects to (the proxy's, through one), and
    /// how long resolving the host took (nil for an address, or through a proxy). A request goes out only through
    /// `execute`, to the canonical URL whose host the route's client was pinned for.
    package struct Route: Sendable {
        private let client: HTTPClient
        /// Names `client` for as long as the service runs (its connections' ids are its own).
        package let clientSerial: Int
        /// The URL requested, its host spelled as the client was pinned for.
        package let destination: Destination
        package let address: String?
        package let port: Int
        package let isProxy: Bool
        package let lookup: (start: Date, end: Date)?

        fileprivate init(
            client: HTTPClient,
            clientSerial: Int,
            destination: Destination,
            address: String?,
            port: Int,
            isProxy: Bool,
            lookup: (start: Date, end: Date)?
        ) {
            self.client = client
            self.clientSerial = clientSerial
            self.destination = destination
            self.address = address
            self.port = port
            self.isProxy = isProxy
            self.lookup = lookup
        }

        /// Sends `request` to the route's destination, whatever URL it was built with: the client then connects to
        /// the vetted address and never resolves the name again. In a span (tracing on), the request is a client span
        /// of the client's, which sends the span's `traceparent`; one the request was given (a task's own header)
        /// gives way to it.
        package func execute(_ request: HTTPClientRequest, deadline: NIODeadline, logger: Logger? = nil) async throws -> HTTPClientResponse
        {
            var request = request
            request.url = destination.url
            if Trace.traceparent() != nil {
                for name in ["traceparent", "tracestate"] { request.headers.remove(name: name) }
            }
            return try await client.execute(request, deadline: deadline, logger: logger)
        }
    }

    /// How a request for `url` goes, directly or `through` a proxy; throws `unsupportedURL`, `destinationNotAllowed`
    /// or the resolver's failure. Through a proxy, both the proxy's address and the target's must be permitted, and
    /// the proxy is asked to reach the target's vetted address, so that it does not resolve the name again either.
    package func route(for url: String, through proxy: ProxySetting? = nil) async throws -> Route {
        let destination = try Destination(url)
        let lookupStart = Date()
        let target = try await permittedAddress(of: destination)
        let lookup = destination.address == nil ? (start: lookupStart, end: Date()) : nil
        // The client's only override is the canonical host's vetted address, and `Route.execute` requests only it.
        let pin: (inout HTTPClient.Configuration) -> Void = { configuration in
            configuration.dnsOverride = destination.address == nil ? [destination.host: target.description] : [:]
        }
        let targetKey = "\(destination.host)|\(target)"
        if let proxy {
            let proxyDestination = try Destination("http://\(proxy.host.contains(":") ? "[\(proxy.host)]" : proxy.host):\(proxy.port)/")
            let proxyAddress = try await permittedAddress(of: proxyDestination).description
            let proxyKey = "proxy|\(proxy.url)|\(proxyAddress)"
            // AsyncHTTPClient reaches an http:// proxy itself, and an https:// one through a relay that adds the TLS.
            let reached =
                proxy.kind == .https
                ? (host: "127.0.0.1", port: try await relay(key: proxyKey, to: proxy, at: proxyAddress).port)
                : (host: proxyAddress, port: proxy.port)
            let (client, serial) = cachedClient(key: "\(proxyKey)|\(targetKey)") { configuration in
                pin(&configuration)
                configuration.proxy =
                    switch proxy.kind {
                    case .http, .https:
                        .server(
                            host: reached.host,
                            port: reached.port,
                            authorization: proxy.username.map { .basic(username: $0, password: proxy.password ?? "") }
                        )
                    case .socks5: .socksServer(host: proxyAddress, port: proxy.port)
                    }
            }
            return Route(
                client: client,
                clientSerial: serial,
                destination: destination,
                address: proxyAddress,
                port: proxy.port,
                isProxy: true,
                lookup: nil
            )
        }
        if destination.address != nil {
            return Route(
                client: base,
                clientSerial: baseSerial,
                destination: destination,
                address: destination.host,
                port: destination.port,
                isProxy: false,
                lookup: nil
            )
        }
        let (client, serial) = cachedClient(key: targetKey, pin)
        return Route(
            client: client,
            clientSerial: serial,
            destination: destination,
            address: target.description,
            port: destination.port,
            isProxy: false,
            lookup: lookup
        )
    }

    /// The address to connect to for `destination`: its own, or the first its host resolves to once every one is
    /// found permitted. A name refused says the rule, not what the resolver said: one that does not resolve and one
    /// that resolves to a refused address get the same error, so that a tenant cannot map the operator's network
    /// through the service's resolver. The operator's log keeps the detail (under the request's id, in a request).
    private func permittedAddress(of destination: Destination) async throws -> IPAddress {
        if let literal = destination.address {
            try check(literal)
            return literal
        }
        let host = destination.host
        let addresses: [IPAddress]
        do {
            addresses = try await Self.resolve(host, port: destination.port)
        } catch let error as TransferError where error.code == .destinationNotAllowed {
            logger.notice("a destination was refused: its name does not resolve", metadata: ["host": "\(host)"])
            throw error
        }
        for address in addresses {
            guard let reason = policy.refusal(for: address) else { continue }
            logger.notice(
                "a destination was refused: its name resolves to an address not allowed",
                metadata: ["host": "\(host)", "address": "\(address)", "reason": "\(reason)"]
            )
            throw Self.refusal(of: host)
        }
        guard let first = addresses.first else { throw Self.refusal(of: host) }
        return first
    }

    /// What a tenant is told of a name refused, whatever the resolver answered.
    static func refusal(of host: String) -> TransferError {
        TransferError(
            code: .destinationNotAllowed,
            message:
                "\(host) is not an allowed destination: it does not resolve to a public address, and transferd connects only to public addresses unless the operator allows more (--allow-destination)."
        )
    }

    /// Throws `destinationNotAllowed` when the policy refuses `address`, which the client gave as an address.
    package func check(_ address: IPAddress) throws {
        if let reason = policy.refusal(for: address) {
            throw TransferError(
                code: .destinationNotAllowed,
                message:
                    "\(reason), not an allowed destination; transferd connects only to public addresses unless the operator allows more (--allow-destination)."
            )
        }
    }

    /// The relay to the https:// `proxy` at `address`, kept under `key`; started when there is none.
    private func relay(key: String, to proxy: ProxySetting, at address: String) async throws -> HTTPSProxyRelay {
        if let relay = relays.withLock({ $0[key] }) { return relay }
        let tls = configuration.tlsConfiguration ?? .makeClientConfiguration()
        let started = try await HTTPSProxyRelay.start(host: proxy.host, address: address, port: proxy.port, tls: tls)
        // Two transfers may have started one at once: the first kept serves both.
        let kept = relays.withLock { relays in
            if let first = relays[key] { return first }
            relays[key] = started
            return started
        }
        if kept !== started { started.close() }
        return kept
    }

    /// Shuts every client down (service stop).
    package func shutdown() async throws {
        stopRetiring()
        for relay in relays.withLock({ $0.values }) { relay.close() }
        let clients = pinned.withLock { pinned in
            defer { pinned.removeAll() }
            return pinned.map(\.client)
        }
        for client in clients { try? await client.shutdown() }
        try await base.shutdown()
    }

    /// The client kept under `key`, made with the base configuration as `configure` changes it when there is none.
    private func cachedClient(key: String, _ configure: (inout HTTPClient.Configuration) -> Void) -> (HTTPClient, serial: Int) {
        let (client, serial, evicted) = pinned.withLock { pinned -> (HTTPClient, Int, HTTPClient?) in
            if let found = pinned.first(where: { $0.key == key }) { return (found.client, found.serial, nil) }
            var configuration = self.configuration
            configure(&configuration)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let serial = Self.nextSerial()
            pinned.append((key, client, serial))
            guard pinned.count > Self.pinnedLimit else { return (client, serial, nil) }
            let evicted = pinned.removeFirst()
            // Its relay takes no new connection; those under way go on until its transfers end.
            relays.withLock { $0.removeValue(forKey: evicted.key) }?.close()
            return (client, serial, evicted.client)
        }
        if let evicted, case .terminated = retiring.yield(evicted) {
            // The service is stopping: `shutdown()` takes it with the others.
            pinned.withLock { $0.append(("retired", evicted, 0)) }
        }
        return (client, serial)
    }

    private static func nextSerial() -> Int {
        serials.add(1, ordering: .relaxed).newValue
    }

    /// The host's addresses, from the system resolver (getaddrinfo), off the event loops.
    package static func resolve(_ host: String, port: Int) async throws -> [IPAddress] {
        try await NIOThreadPool.singleton.runIfActive {
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            var result: UnsafeMutablePointer<addrinfo>?
            let status = getaddrinfo(host, String(port), &hints, &result)
            // Only a resolver that did not answer is told apart; a name it answered has no address is refused as
            // one inside would be.
            guard status != EAI_AGAIN else {
                throw TransferError(code: .cannotFindHost, message: "The resolver did not answer for \(host); try again later.")
            }
            guard status == 0 else { throw refusal(of: host) }
            defer { freeaddrinfo(result) }
            var addresses: [IPAddress] = []
            var entry = result
            while let info = entry?.pointee {
                switch info.ai_family {
                case AF_INET:
                    info.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        var address = pointer.pointee.sin_addr
                        addresses.append(IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }))
                    }
                case AF_INET6:
                    info.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        var address = pointer.pointee.sin6_addr
                        addresses.append(IPAddress(bytes: withUnsafeBytes(of: &address) { Array($0) }))
                    }
                default:
                    break
                }
                entry = info.ai_next
            }
            return addresses.reduce(into: []) { unique, address in if !unique.contains(address) { unique.append(address) } }
        }
    }
}
