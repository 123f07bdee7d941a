import Foundation
import Testing

/// The public `tuspy` client (pip) uploads to `/v1/files` in chunks, through a broken connection, and resumes.
@Suite struct TusInteropTests {
    struct Outcome: Decodable {
        var url: String
        var size: Int
        var sha256: String
        var interruptedAt: Int
        var resumedAt: Int
    }

    @Test func tuspyUploadsWithAnInterruptionAndTheStoredFileMatches() async throws {
        try await TestService.with { api in
            let script = try InteropScript("tus_interop.py", arguments: [api.baseURL, TestService.apiKey])
            let outcome = try JSONDecoder().decode(Outcome.self, from: Data(try await script.result().utf8))

            #expect(outcome.resumedAt > outcome.interruptedAt, "the bytes of the broken PATCH were kept")
            let path = try #require(URL(string: outcome.url)?.path)
            let file = try await api.send(.GET, path).decode(StagedFileView.self)
            #expect(file.state == "complete")
            #expect(file.size == outcome.size)
            #expect(file.sha256 == outcome.sha256)
            #expect(file.metadata.additionalProperties["filename"] == "interop.bin")
        }
    }
}
