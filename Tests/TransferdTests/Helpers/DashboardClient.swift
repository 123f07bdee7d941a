import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// A browser as far as the dashboard's security is concerned: it keeps the session cookie it is given, sends it
/// back, posts forms, and does not follow redirects (the tests read them).
final class DashboardClient: @unchecked Sendable {
    let baseURL: String
    /// The session cookie's value, as the last `Set-Cookie` left it.
    var cookie: String?
    private let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    init(_ api: APIClient) {
        baseURL = api.baseURL
    }

    deinit {
        try? http.syncShutdown()
    }

    /// An answer: status, headers and the page's text.
    struct Page {
        var status: Int
        var headers: HTTPHeaders
        var text: String
        var location: String? { headers.first(name: "Location") }
        var setCookie: String? { headers.first(name: "Set-Cookie") }
        /// The problem's detail the page shows (`<p class="problem">`), its HTML unescaped.
        var problem: String? {
            guard let start = text.range(of: #"<p class="problem" role="alert">"#),
                let end = text.range(of: "</p>", range: start.upperBound..<text.endIndex)
            else { return nil }
            return String(text[start.upperBound..<end.lowerBound])
                .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                .replacingOccurrences(of: "&amp;", with: "&")
        }
        /// The signed link on the page to the content at `path`, as a browser follows it (its `&amp;`s read).
        func contentLink(to path: String) -> String? {
            guard let range = text.range(of: #"href="\#(path)\?[^"]+""#, options: .regularExpression) else { return nil }
            return String(text[range].dropFirst(#"href=""#.count).dropLast()).replacingOccurrences(of: "&amp;", with: "&")
        }

        /// The sign-out form's CSRF token on the page.
        var csrf: String? {
            guard let range = text.range(of: #"name="csrf" value="[0-9a-f]+""#, options: .regularExpression) else { return nil }
            return String(text[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
        }
    }

    /// Signs in with `key`; returns the session's CSRF token, as the pages' forms carry it.
    @discardableResult
    func signIn(_ key: String = TestService.apiKey) async throws -> String {
        let signedIn = try await post("/ui/sign-in", form: ["key": key])
        guard signedIn.status == 303, let csrf = try await get("/ui/sessions").csrf else {
            throw DashboardFailure("signing in answered \(signedIn.status): \(signedIn.text)")
        }
        return csrf
    }

    /// What went wrong in a dashboard exchange a test relied on.
    struct DashboardFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Page {
        try await send(.GET, path, headers: headers, body: nil)
    }

    /// Posts `form` (URL-encoded) to `path`.
    func post(_ path: String, form: [String: String], headers: [(String, String)] = []) async throws -> Page {
        let body = form.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }.joined(
            separator: "&"
        )
        return try await send(.POST, path, headers: headers + [("Content-Type", "application/x-www-form-urlencoded")], body: body)
    }

    func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: String?) async throws -> Page {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let cookie { request.headers.add(name: "Cookie", value: "transferd_dashboard=\(cookie)") }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await http.execute(request, timeout: .seconds(30))
        let text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        let page = Page(status: Int(response.status.code), headers: response.headers, text: text)
        if let setCookie = page.setCookie, let value = setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last {
            cookie = value.isEmpty || setCookie.contains("Max-Age=0") ? nil : String(value)
        }
        return page
    }
}
