import Foundation
import Testing
import TransferdTestOrigins

/// A redirect to another origin (scheme, host or port) carries none of the task's or the session's credentials: a
/// hostile origin cannot collect them by redirecting to a server of its own. Within the task's origin they go on.
@Suite struct RedirectCredentialTests {
    @Test func credentialsDoNotFollowARedirectToAnotherOrigin() async throws {
        try await OriginServer.with { origin in
            try await OriginServer.with { collector in
                try await TestService.with { api in
                    // setup: secrets in the session's headers, the task's headers and the URL's user information
                    let sessionHeaders = #"{"X-Api-Key": "s3cret-session", "Accept-Language": "de"}"#
                    try await api.createSession("hops", configuration: #"{"httpAdditionalHeaders": \#(sessionHeaders)}"#)
                    let headers = #", "headers": {"Authorization": "Bearer s3cret-task", "Cookie": "id=s3cret-cookie"}"#
                    let elsewhere = collector.url("/files/100")
                    let withUser = "http://u:s3cret-url@" + origin.url("/redirect/1/100?to=\(elsewhere)").dropFirst("http://".count)

                    // act: a redirect within the origin, one to another port, one from a URL with a password
                    _ = try await api.createTask("hops", url: origin.url("/redirect/2/100"), extra: headers)
                    let sameOrigin = try await api.waitForCompletion("hops", 1)
                    let keptWithin = origin.lastHeaders
                    _ = try await api.createTask("hops", url: origin.url("/redirect/1/100?to=\(elsewhere)"), extra: headers)
                    let crossOrigin = try await api.waitForCompletion("hops", 2)
                    let collected = collector.lastHeaders
                    _ = try await api.createTask("hops", url: withUser)
                    let fromUserInfo = try await api.waitForCompletion("hops", 3)
                    let collectedAgain = collector.lastHeaders

                    // verify
                    #expect(sameOrigin.error == nil && crossOrigin.error == nil && fromUserInfo.error == nil)
                    #expect(keptWithin["authorization"] == "Bearer s3cret-task" && keptWithin["cookie"] == "id=s3cret-cookie")
                    #expect(keptWithin["x-api-key"] == "s3cret-session")
                    for headers in [collected, collectedAgain] {
                        #expect(headers["authorization"] == nil && headers["cookie"] == nil && headers["x-api-key"] == nil, "\(headers)")
                        #expect(headers["accept-language"] == "de" && headers["user-agent"] == "transferd", "safe headers go on")
                    }
                }
            }
        }
    }
}
