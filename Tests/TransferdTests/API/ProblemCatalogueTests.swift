import Foundation
import Testing
import TransferdAPI
import Yams

/// Every problem the API answers with comes from one catalogue (`ProblemKind`), which the contract lists in full.
@Suite struct ProblemCatalogueTests {
    @Test func everyKindHasItsOwnSlugAndAnErrorStatus() {
        let slugs = ProblemKind.allCases.map(\.slug)
        #expect(Set(slugs).count == slugs.count)
        for kind in ProblemKind.allCases {
            #expect(kind.slug.wholeMatch(of: /[a-z]+(-[a-z]+)*/) != nil, "\(kind)")
            #expect((400..<600).contains(kind.status.code), "\(kind)")
            #expect(!kind.title.isEmpty, "\(kind)")
        }
    }

    @Test func theContractListsEveryKind() throws {
        let spec = try #require(try Yams.load(yaml: String(contentsOf: OpenAPIContractTests.specURL, encoding: .utf8)) as? [String: Any])
        let components = try #require(spec["components"] as? [String: Any])
        let problem = try #require((components["schemas"] as? [String: Any])?["Problem"] as? [String: Any])
        let type = try #require((problem["properties"] as? [String: Any])?["type"] as? [String: Any])
        let description = try #require(type["description"] as? String)
        let listed = Set(description.matches(of: /`([a-z-]+)`/).map { String($0.output.1) })
        #expect(listed == Set(ProblemKind.allCases.map(\.slug)))
    }

    @Test func anHTTPFrameworkErrorTakesTheKindOfItsStatus() {
        #expect(ProblemKind(.notFound) == .notFound)
        #expect(ProblemKind(.methodNotAllowed) == .methodNotAllowed)
        #expect(ProblemKind(.init(code: 431)) == .badRequest)
        #expect(ProblemKind(.badGateway) == .internalError)
    }
}
