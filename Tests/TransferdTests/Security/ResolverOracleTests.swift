import Foundation
import NIOHTTP1
import Testing

/// The destination guard is no resolver oracle: a tenant that gives a name resolving inside the operator's network
/// and one giving a name that does not resolve at all get the same answer, word for word but the name, for every URL
/// a tenant gives (a task's, a fetch's, a webhook's, a store's endpoint, a proxy, and a redirect a transfer meets),
/// and neither answer names an address. The operator's log keeps the detail, with the request's id. Performed against
/// the service in a process of its own whose only DNS server is the lab's (`Tests/Interop/rebinding_lab.py`).
@Suite struct ResolverOracleTests {
    @Test(.enabled(if: getuid() == 0, "a mount namespace of the service's own, for its resolv.conf, needs root"))
    func aNameInsideAndANameThatDoesNotResolveGetTheSameAnswer() async throws {
        // setup: `inside.test` always resolves to the internal address (127.0.0.1, not allowed); names outside `.test`
        // do not resolve
        try await DNSRebindingTests.withLab(["inside.test=0"]) { port, service in
            let api = service.api
            let (inside, nowhere) = ("inside.test", "nowhere.invalid")
            try await api.createSession("lab")

            // act: every URL a tenant gives, with each name
            func answers(_ host: String) async throws -> [String: (status: Int, detail: String)] {
                let requests: [(String, HTTPMethod, String, String)] = [
                    ("task", .POST, "/v1/sessions/lab/tasks", #"{"kind": "download", "url": "http://\#(host):\#(port)/data"}"#),
                    ("fetch", .POST, "/v1/sessions/lab/fetches", #"{"url": "http://\#(host):\#(port)/data", "interval": 60}"#),
                    ("webhook", .PUT, "/v1/sessions/lab/webhook", #"{"url": "http://\#(host):\#(port)/hook"}"#),
                    (
                        "storage", .PUT, "/v1/storage/probe",
                        #"{"endpoint": "http://\#(host):\#(port)", "bucket": "loot", "accessKeyId": "k", "secretAccessKey": "s"}"#
                    ),
                    ("proxy", .PUT, "/v1/sessions/proxied", #"{"configuration": {"proxy": "http://\#(host):\#(port)"}}"#),
                ]
                var answers: [String: (Int, String)] = [:]
                for (name, method, path, body) in requests {
                    let reply = try await api.send(method, path, json: body)
                    answers[name] = (reply.status, (reply.problem?.detail ?? reply.text).replacingOccurrences(of: host, with: "HOST"))
                }
                let hop = try await api.createTask("lab", url: "http://127.0.0.2:\(port)/redirect?to=http://\(host):\(port)/data")
                let task = try await api.waitForCompletion("lab", hop.taskIdentifier)
                let error = "\(task.error?.code ?? "none"): \(task.error?.message ?? "")"
                answers["redirect"] = (0, error.replacingOccurrences(of: host, with: "HOST"))
                return answers
            }
            let toInside = try await answers(inside)
            let toNowhere = try await answers(nowhere)

            // verify: the same refusal for both, naming no address; the operator's log has the detail and the request
            #expect(toInside.count == 6)
            for (field, answer) in toInside {
                let other = try #require(toNowhere[field])
                #expect(answer.status == other.status && answer.detail == other.detail, "\(field): \(answer) against \(other)")
                #expect(field == "redirect" || answer.status == 422, "\(field): \(answer)")
                #expect(!answer.detail.contains("127.0.0.1") && !answer.detail.contains("resolves to"), "\(field): \(answer.detail)")
                #expect(answer.detail.contains("HOST is not an allowed destination"), "\(field): \(answer.detail)")
            }
            #expect(toInside["redirect"]?.detail.hasPrefix("destinationNotAllowed: ") == true)
            let refusals = service.log.split(separator: "\n").filter { $0.contains("a destination was refused") }
            #expect(refusals.contains { $0.contains(inside) && $0.contains("127.0.0.1") && $0.contains("request_id") }, "\(refusals)")
            #expect(refusals.contains { $0.contains(nowhere) && $0.contains("does not resolve") }, "\(refusals)")
        }
    }
}
