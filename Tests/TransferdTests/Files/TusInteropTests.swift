import Foundation
import Testing
import TransferdDomain
import TransferdTestSupport

@testable import transferd

/// The public `tuspy` client (pip) uploads to `/v1/files` in chunks, through a broken connection, and resumes: into
/// the data directory, and into the content store.
@Suite struct TusInteropTests {
    struct Outcome: Decodable {
        var url: String
        var size: Int
        var sha256: String
        var interruptedAt: Int
        var resumedAt: Int
    }

    @Test(arguments: [false, true])
    func tuspyUploadsWithAnInterruptionAndTheStoredFileMatches(inContentStore: Bool) async throws {
        let settings =
            if inContentStore {
                try ContentStoreTests.settings(try await S3TestServer.shared(), bucket: try await S3TestServer.shared().makeBucket())
            } else {
                nil as ContentStoreSettings?
            }
        try await TestService.with(configure: { $0.contentStore = settings }) { api in
            let script = try InteropScript(
                "tus_interop.py",
                arguments: [api.baseURL, TestService.apiKey] + (inContentStore ? ["keeps-nothing"] : [])
            )
            let outcome = try JSONDecoder().decode(Outcome.self, from: Data(try await script.result().utf8))

            // An append into the content store that breaks off keeps nothing: it is sent again.
            if !inContentStore { #expect(outcome.resumedAt > outcome.interruptedAt, "the bytes of the broken PATCH were kept") }
            let path = try #require(URL(string: outcome.url)?.path)
            let file = try await api.send(.GET, path).decode(StagedFileView.self)
            #expect(file.state == "complete")
            #expect(file.size == outcome.size)
            #expect(file.sha256 == outcome.sha256)
            #expect(file.metadata.additionalProperties["filename"] == "interop.bin")
        }
    }
}
