import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TransferdDomain

/// The requests of an attempt, with the redirects they follow.
extension DownloadRunner {
    /// The statuses of a redirect that carries a `Location` to follow.
    static let redirectStatuses: Set<UInt> = [301, 302, 303, 307, 308]

    /// The most of a followed redirect's body read, so that its connection can carry the next request; a longer
    /// body closes the connection instead.
    static let redirectBodyLimit = 64 << 10

    /// Sends the request, asking for `range` when given, and follows at most ten redirects as the job's policy
    /// allows, reporting each one (segments of a download, sent to the final URL, report none), timing every
    /// request; returns the final response (a redirect the policy did not follow), the URL that gave it and its
    /// timeline.
    func fetch(
        _ job: TransferJob,
        _ download: DownloadJob,
        from url: String,
        range: RangeRequest?,
        deadline: NIODeadline,
        transfer: ActiveTransfer,
        reportingRedirects: Bool = true
    ) async throws -> (HTTPClientResponse, String, RequestTimeline) {
        var url = url
        for _ in 0...Self.maximumRedirects {
            var request = HTTPClientRequest.transfer(to: url)
            request.method = .GET
            for header in job.headers(for: url) { request.headers.replaceOrAdd(name: header.name, value: header.value) }
            if !request.headers.contains(name: "user-agent") { request.headers.add(name: "User-Agent", value: "transferd") }
            try job.authorize(&request, for: url, with: environment.vault)
            if let range {
                request.headers.replaceOrAdd(name: "Range", value: "bytes=\(range.first)-\(range.last.map(String.init) ?? "")")
                if let validator = range.ifRange { request.headers.replaceOrAdd(name: "If-Range", value: validator.ifRange) }
            }
            let timeline = transfer.timeline(url: url, method: "GET")
            let route = try await environment.destinations.route(for: url, through: try job.effectiveProxy(with: environment.vault))
            timeline.routed(route)
            let response = try await route.execute(request, deadline: deadline, logger: timeline.logger())
            timeline.responded(response)
            guard Self.redirectStatuses.contains(response.status.code), let location = response.headers.first(name: "location") else {
                return (response, url, timeline)
            }
            guard let next = URL(string: location, relativeTo: URL(string: url))?.absoluteURL.absoluteString,
                let scheme = URLComponents(string: next)?.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else {
                throw TransferError(code: .unsupportedURL, message: "The server redirected to an unsupported URL.")
            }
            let follows = download.redirectPolicy.follows(from: url, to: next)
            if reportingRedirects {
                let status = Int(response.status.code)
                try await recording {
                    try await environment.reporter.redirected(transfer, statusCode: status, from: url, to: next, followed: follows)
                }
            }
            guard follows else { return (response, url, timeline) }
            timeline.redirected()
            timeline.finished(bodyBytes: try await Self.drain(response.body))
            url = next
        }
        throw TransferError(code: .httpTooManyRedirects, message: "The server redirected more than \(Self.maximumRedirects) times.")
    }

    /// Reads a followed redirect's body up to `redirectBodyLimit` bytes (so that its connection is free for the next
    /// request); returns how many bytes were read.
    private static func drain(_ body: HTTPClientResponse.Body) async throws -> Int64 {
        var read: Int64 = 0
        for try await chunk in body {
            read += Int64(chunk.readableBytes)
            if read > redirectBodyLimit { break }
        }
        return read
    }
}
