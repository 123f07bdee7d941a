import Foundation
import Testing
import TransferdTestOrigins

/// willPerformHTTPRedirection: every redirect a download meets writes `task.redirected`, and the session's or the
/// task's redirect policy decides whether it is followed. A redirect not followed completes the task with the 3xx
/// response, its body as the content.
@Suite struct RedirectPolicyTests {
    @Test func aChainIsFollowedByDefaultAndEveryHopIsAnEvent() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("chain")
                _ = try await api.createTask("chain", url: origin.url("/redirect/3/2048"))

                // act
                let task = try await api.waitForCompletion("chain", 1)

                // verify: three hops, each from the URL that answered it to the next
                #expect(task.error == nil && task.countOfBytesReceived == 2048 && task.response?.statusCode == 200)
                #expect(task.currentRequest?.url == origin.url("/files/2048"))
                #expect(task.redirectPolicy == nil, "the session's policy applies")
                let hops = try await api.allEvents("chain").filter { $0.type == "task.redirected" }.map(\.data)
                #expect(hops.map(\.fromURL) == ["/redirect/3/2048", "/redirect/2/2048", "/redirect/1/2048"].map { origin.url($0) })
                #expect(hops.map(\.toURL) == ["/redirect/2/2048", "/redirect/1/2048", "/files/2048"].map { origin.url($0) })
                #expect(hops.allSatisfy { $0.statusCode == 302 && $0.followed == true })
            }
        }
    }

    @Test func aTaskWhosePolicyIsNoneCompletesWithTheRedirect() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("stay")
                let created = try await api.createTask("stay", url: origin.url("/redirect/2/2048"), extra: #", "redirectPolicy": "none""#)

                // act
                let task = try await api.waitForCompletion("stay", 1)
                let content = try await api.send(.GET, "/v1/sessions/stay/tasks/1/content")

                // verify: a success whose response is the 302, whose content is its body
                #expect(created.redirectPolicy == "none")
                #expect(task.error == nil && task.response?.statusCode == 302, "\(String(describing: task.error))")
                #expect(task.response?.headers.additionalProperties["location"] == "/redirect/1/2048")
                #expect(content.text == "Moved to /redirect/1/2048\n")
                #expect(!task.resumable && task.notResumableReason == "redirectNotFollowed")
                let hops = try await api.allEvents("stay").filter { $0.type == "task.redirected" }.map(\.data)
                #expect(hops.count == 1 && hops.first?.followed == false && hops.first?.toURL == origin.url("/redirect/1/2048"))
            }
        }
    }

    @Test func aSameOriginSessionFollowsOnlyWithinItsOrigin() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("origin", configuration: #"{"redirectPolicy": "sameOrigin"}"#)
                let elsewhere = origin.url("/files/1000", host: "localhost")
                _ = try await api.createTask("origin", url: origin.url("/redirect/2/1000"))
                _ = try await api.createTask("origin", url: origin.url("/redirect/1/1000?to=\(elsewhere)"))
                _ = try await api.createTask(
                    "origin",
                    url: origin.url("/redirect/1/1000?to=\(elsewhere)"),
                    extra: #", "redirectPolicy": "follow""#
                )

                // act
                let within = try await api.waitForCompletion("origin", 1)
                let across = try await api.waitForCompletion("origin", 2)
                let allowed = try await api.waitForCompletion("origin", 3)

                // verify
                #expect(within.response?.statusCode == 200 && within.countOfBytesReceived == 1000)
                #expect(across.response?.statusCode == 302 && across.currentRequest?.url == origin.url("/redirect/1/1000?to=\(elsewhere)"))
                #expect(allowed.error == nil && allowed.response?.statusCode == 200, "the task's own policy wins")
                let session = try await api.send(.GET, "/v1/sessions/origin")
                #expect(session.text.contains(#""redirectPolicy":"sameOrigin""#))
            }
        }
    }

    @Test(arguments: [
        (
            #"{"configuration": {"redirectPolicy": "sometimes"}}"#, "PUT", "/v1/sessions/bad",
            "`configuration.redirectPolicy` is not acceptable: must be one of follow, sameOrigin, none."
        ),
        (
            #"{"kind": "download", "url": "http://127.0.0.1:9/x", "redirectPolicy": 3}"#, "POST", "/v1/sessions/good/tasks",
            "`redirectPolicy` must be a string."
        ),
        (
            #"{"kind": "upload", "url": "http://127.0.0.1:9/x", "from": {"file": "f"}, "redirectPolicy": "none"}"#, "POST",
            "/v1/sessions/good/tasks", "`redirectPolicy` applies to downloads only."
        ),
    ])
    func aBadPolicyIsRefusedByName(body: String, method: String, path: String, detail: String) async throws {
        try await TestService.with { api in
            try await api.createSession("good")
            let reply = try await api.send(.init(rawValue: method), path, json: body)
            #expect(reply.status == 400)
            #expect(reply.problem?.detail == detail)
        }
    }
}
