import AsyncHTTPClient
import Foundation
import TransferdDomain

extension HTTPClientRequest {
    /// A request for a client's URL: credentials in its user info (`https://user:password@host/`) become basic
    /// auth and leave the URL, so that they travel only in the `Authorization` header.
    package static func transfer(to url: String) -> HTTPClientRequest {
        guard var components = URLComponents(string: url), let user = components.user else { return HTTPClientRequest(url: url) }
        let password = components.password ?? ""
        (components.user, components.password) = (nil, nil)
        var request = HTTPClientRequest(url: components.string ?? url)
        request.setBasicAuth(username: user, password: password)
        return request
    }
}
