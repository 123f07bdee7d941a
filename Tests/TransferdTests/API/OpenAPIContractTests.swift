import Foundation
import Testing
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage
import Yams

@testable import TransferdAPI
@testable import transferd

/// `openapi.yaml` is the API's contract: the router serves exactly the operations it lists.
@Suite struct OpenAPIContractTests {
    static let specURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("openapi.yaml")

    static let methods: Set<String> = ["get", "put", "post", "delete", "head", "patch", "options"]

    /// Every operation of `openapi.yaml`, as `METHOD /path`.
    static func documentedOperations() throws -> Set<String> {
        let spec = try #require(try Yams.load(yaml: String(contentsOf: Self.specURL, encoding: .utf8)) as? [String: Any])
        let paths = try #require(spec["paths"] as? [String: Any])
        var documented: Set<String> = []
        for (path, item) in paths {
            let operations = try #require(item as? [String: Any])
            for method in operations.keys where Self.methods.contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        return documented
    }

    @Test func everyRouteIsInTheSpecAndEveryOperationIsRouted() async throws {
        let documented = try Self.documentedOperations()
        let routed = try await RoutedOperations.all()

        #expect(routed.subtracting(documented).isEmpty, "routes missing from openapi.yaml")
        #expect(documented.subtracting(routed).isEmpty, "operations in openapi.yaml that no route serves")
        #expect(routed.count == documented.count)
    }
}
