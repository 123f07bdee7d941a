import Foundation
import HTTPTypes
import Testing

/// Bad requests get a 4xx `application/problem+json` whose `detail` says exactly what is wrong, and change nothing.
/// Answers only, so through the router in process (no socket).
@Suite struct BadInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var method: HTTPRequest.Method
        var path: String
        var json: String?
        var status: Int
        var detail: String

        var testDescription: String { "\(method) \(path) \(json ?? "")" }
    }

    static let tasks = "/v1/sessions/known/tasks"

    static let cases: [Case] = [
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "down"#,
            status: 400,
            detail: "The request body is not valid JSON: the text ends inside a string at line 1, column 15 (byte 14)."
        ),
        // strict JSON: what a lenient parser would take is refused, with where
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind":"download",}"#,
            status: 400,
            detail:
                "The request body is not valid JSON: unexpected `}` where a member's quoted name should be at line 1, column 20 (byte 19)."
        ),
        Case(
            method: .post,
            path: tasks,
            json: "{\n  \"kind\": 'download'\n}",
            status: 400,
            detail: "The request body is not valid JSON: unexpected `'` where a value should begin at line 2, column 11 (byte 12)."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "priority": 01}"#,
            status: 400,
            detail: "The request body is not valid JSON: a number may not have a leading zero at line 1, column 35 (byte 34)."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download"} {}"#,
            status: 400,
            detail: "The request body is not valid JSON: unexpected `{` after the JSON value at line 1, column 22 (byte 21)."
        ),
        Case(
            method: .post,
            path: tasks,
            json: String(repeating: "[", count: 65) + String(repeating: "]", count: 65),
            status: 400,
            detail: "The request body is not valid JSON: nesting deeper than 64 levels at line 1, column 65 (byte 64)."
        ),
        Case(method: .post, path: tasks, json: #"{"url": "http://a/"}"#, status: 400, detail: "`kind` is required."),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "teleport", "url": "http://a/"}"#,
            status: 400,
            detail: "`kind` must be one of download, upload, not `teleport`."
        ),
        Case(method: .post, path: tasks, json: #"{"kind": "download"}"#, status: 400, detail: "`url` is required."),
        Case(method: .post, path: tasks, json: #"{"kind": "download", "url": 42}"#, status: 400, detail: "`url` must be a string."),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "not a url"}"#,
            status: 400,
            detail: "`url` must be an absolute http or https URL with a host."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "ftp://example.com/f"}"#,
            status: 400,
            detail: "`url` must use the http or https scheme, not `ftp`."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "http://a/", "priority": 2}"#,
            status: 400,
            detail: "`priority` must be a number from 0.0 to 1.0."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "http://a/", "priority": "high"}"#,
            status: 400,
            detail: "`priority` must be a number."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "http://a/", "headers": {"Host": "b"}}"#,
            status: 400,
            detail: "`headers.Host` is set by transferd itself and cannot be given."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "http://a/", "headers": {"Bad Name": "b"}}"#,
            status: 400,
            detail: "`headers.Bad Name` is not a valid HTTP header name."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "http://a/", "connections": 17}"#,
            status: 400,
            detail: "`connections` must be an integer from 1 to 16."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "url": "http://a/", "maxBytesPerSecond": 10}"#,
            status: 400,
            detail: "`maxBytesPerSecond` must be at least 1024 (bytes per second), or null for no limit."
        ),
        Case(
            method: .post,
            path: tasks,
            json: #"{"kind": "download", "resumeData": 7}"#,
            status: 400,
            detail: "`resumeData` must be a string."
        ),
        Case(method: .patch, path: "\(tasks)/99", json: "{}", status: 404, detail: "Task 99 does not exist in this session."),
        Case(
            method: .post,
            path: "\(tasks)/99/cancel",
            json: #"{"produceResumeData": "yes"}"#,
            status: 400,
            detail: "`produceResumeData` must be a boolean."
        ),
        Case(
            method: .put,
            path: "/v1/sessions/s",
            json: #"{"configuration": {"retryInitialDelay": 60, "retryMaximumDelay": 10}}"#,
            status: 400,
            detail: "`configuration.retryInitialDelay` must not exceed configuration.retryMaximumDelay."
        ),
        Case(
            method: .post,
            path: "/v1/sessions/unknown/tasks",
            json: #"{"kind": "download", "url": "http://a/"}"#,
            status: 404,
            detail: "No session has the identifier `unknown`."
        ),
        Case(method: .get, path: "\(tasks)/99", status: 404, detail: "Task 99 does not exist in session `known`."),
        Case(method: .post, path: "\(tasks)/99/resume", status: 404, detail: "Task 99 does not exist in this session."),
        Case(method: .get, path: "\(tasks)/abc", status: 400, detail: "`taskIdentifier` must be a positive integer."),
        Case(method: .get, path: "/v1/sessions/unknown", status: 404, detail: "No session has the identifier `unknown`."),
        Case(method: .get, path: "/v1/sessions/unknown/tasks/1", status: 404, detail: "No session has the identifier `unknown`."),
        // A session that does not exist is a 404 before a task identifier that is not one is a 400.
        Case(method: .get, path: "/v1/sessions/unknown/tasks/abc", status: 404, detail: "No session has the identifier `unknown`."),
        Case(
            method: .get,
            path: "\(tasks)?state=finished",
            status: 400,
            detail: "`state` must be one of suspended, running, canceling, completed."
        ),
        Case(method: .get, path: "\(tasks)?limit=0", status: 400, detail: "`limit` must be an integer from 1 to 1000."),
        Case(method: .get, path: "/v1/sessions/known/events?wait=31", status: 400, detail: "`wait` must be an integer from 0 to 30."),
        Case(
            method: .put,
            path: "/v1/sessions/bad%20id",
            status: 400,
            detail: "`identifier` must be 1 to 200 characters of A-Z, a-z, 0-9, '.', '_' or '-'."
        ),
        Case(
            method: .put,
            path: "/v1/sessions/\(String(repeating: "x", count: 201))",
            status: 400,
            detail: "`identifier` must be 1 to 200 characters of A-Z, a-z, 0-9, '.', '_' or '-'."
        ),
        Case(
            method: .put,
            path: "/v1/sessions/s",
            json: #"{"configuration": {"maximumConnectionsPerHost": 0}}"#,
            status: 400,
            detail: "`configuration.maximumConnectionsPerHost` must be an integer from 1 to 64."
        ),
        Case(
            method: .put,
            path: "/v1/sessions/s",
            json: #"{"configuration": {"timeoutIntervalForRequest": "soon"}}"#,
            status: 400,
            detail: "`configuration.timeoutIntervalForRequest` must be a number."
        ),
        Case(method: .get, path: "/v1/nothing-here", status: 404, detail: "No route matches GET /v1/nothing-here."),
    ]

    @Test(arguments: cases)
    func isRefusedWithAPreciseProblem(_ badCase: Case) async throws {
        try await RoutedAPI.with { api in
            try await api.createSession("known")
            let reply = try await api.send(badCase.method, badCase.path, json: badCase.json)

            #expect(reply.status == badCase.status, "\(reply.text)")
            #expect(reply.header("content-type") == "application/problem+json")
            #expect(reply.problem?.detail == badCase.detail)
            #expect(reply.problem?.status == badCase.status)
            #expect(try await api.eventCount("known") == 0, "a refused request writes nothing")
        }
    }

    @Test func anOversizedBodyGets413() async throws {
        try await RoutedAPI.with { api in
            try await api.createSession("known")
            let padding = String(repeating: "x", count: 2 << 20)
            let reply = try await api.send(
                .post,
                Self.tasks,
                json: #"{"kind": "download", "url": "http://a/", "taskDescription": "\#(padding)"}"#
            )
            #expect(reply.status == 413)
            #expect(reply.header("content-type") == "application/problem+json")
        }
    }

    @Test func aBodyThatIsNotJSONGets415() async throws {
        try await RoutedAPI.with { api in
            try await api.createSession("known")
            let reply = try await api.send(.post, Self.tasks, headers: [("Content-Type", "text/plain")], body: "kind=download")
            #expect(reply.status == 415)
            #expect(reply.problem?.detail == "Request bodies must be `application/json`, not `text/plain`.")
        }
    }
}
