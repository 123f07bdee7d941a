import Foundation

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
