import Foundation
import Logging

@testable import TransferdCore

/// Every operation the production router serves, as `METHOD /path/{parameter}`.
enum RoutedOperations {
    static func all() async throws -> Set<String> {
        let components = try Components(
            configuration: Configuration(dataDirectory: TestService.temporaryDataDirectory()),
            logger: Logger(label: "routes")
        )
        let routed = Set(buildRouter(components).routes.map { "\($0.method) \($0.path)" })
        try await components.httpClient.destinations.shutdown()
        return routed
    }
}
