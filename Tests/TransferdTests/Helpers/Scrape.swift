import Foundation
import Testing

/// One scrape of `GET /metrics`, parsed by the public `prometheus-client` parser (PyPI): each sample by name and sorted
/// labels, and each family's type.
struct Scrape {
    let samples: [String: Double]
    let types: [String: String]

    init(_ api: APIClient) async throws {
        let script = try InteropScript("prometheus_scrape.py", arguments: [api.baseURL, api.key ?? ""])
        let object = try JSONSerialization.jsonObject(with: Data(try await script.result().utf8)) as? [String: Any] ?? [:]
        types = object["#types"] as? [String: String] ?? [:]
        samples = object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
    }

    subscript(_ sample: String) -> Double { samples[sample] ?? 0 }
}

extension APIClient {
    /// Runs `change`, then waits until the scheduler of the service behind this client has looked at its queue since
    /// (`transferd_loop_passes_total`): how a test makes the scheduler decide again and sees that something did not
    /// happen, counted in the scheduler's looks rather than in seconds. (A full scheduler looks only when woken.)
    func afterSchedulerLooks(at change: () async throws -> Void) async throws {
        let looks = { try await Scrape(self)[#"transferd_loop_passes_total{loop="claim queued tasks"}"#] }
        let before = try await looks()
        try await change()
        try await waitUntil(timeout: .seconds(30)) { try await looks() > before }
    }
}
