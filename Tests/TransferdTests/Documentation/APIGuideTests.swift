import Foundation
import Testing

/// The API guide (`docs/api.md`) names every operation of `openapi.yaml` as `` `METHOD /path` ``, and names no
/// operation the spec does not have.
@Suite struct APIGuideTests {
    @Test func theGuideNamesEveryOperationOfTheSpecAndNoOther() throws {
        let specified = try OpenAPIContractTests.documentedOperations()
        let guide = try MarkdownDocument.named("docs/api.md")
        let named = Set(
            guide.text.matches(of: /`(GET|HEAD|PUT|POST|PATCH|DELETE|OPTIONS) (\/[^`\s]*)`/).map { "\($0.output.1) \($0.output.2)" }
        )
        #expect(specified.subtracting(named).isEmpty, "operations of openapi.yaml missing from docs/api.md")
        #expect(named.subtracting(specified).isEmpty, "operations in docs/api.md that openapi.yaml does not have")
        #expect(specified.count > 80)
    }
}
