import Foundation
import Logging
import TransferdDomain
import TransferdEngine
import TransferdServices
import TransferdStorage

@testable import TransferdAPI
@testable import transferd

/// Every operation the production router serves, as `METHOD /path/{parameter}`.
enum RoutedOperations {
    static func all() async throws -> Set<String> {
        let components = try await Components(
            configuration: Configuration(dataDirectory: DataDirectories.temporary()),
            logger: Logger(label: "routes")
        )
        let routed = Set(try buildRouter(components.api).routes.map { "\($0.method) \($0.path)" })
        try await components.httpClient.destinations.shutdown()
        return routed
    }
}
