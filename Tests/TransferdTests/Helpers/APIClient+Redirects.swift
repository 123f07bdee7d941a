import AsyncHTTPClient

extension APIClient {
    /// The answer to a `GET` of `path` as it comes: a redirect is handed back, not followed.
    func unfollowed(_ path: String) async throws -> HTTPClientResponse {
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        var request = HTTPClientRequest(url: baseURL + path)
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        do {
            let response = try await http.execute(request, timeout: .seconds(30))
            try await http.shutdown()
            return response
        } catch {
            try? await http.shutdown()
            throw error
        }
    }
}
