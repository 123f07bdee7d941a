import ArgumentParser
import Foundation
import NIOHTTP1

/// Where transferd is and the API key to use: options, else the environment (`TRANSFERD_URL`,
/// `TRANSFERD_API_KEY`).
struct ConnectionOptions: ParsableArguments {
    static let defaultURL = "http://127.0.0.1:8080"

    @Option(name: .long, help: "transferd's address (default: $TRANSFERD_URL, else \(defaultURL)).")
    var url: String?

    @Option(name: .long, help: "The API key, trd_… (default: $TRANSFERD_API_KEY).")
    var apiKey: String?

    /// The address to use.
    var resolvedURL: String {
        url ?? ProcessInfo.processInfo.environment["TRANSFERD_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultURL
    }

    func validate() throws {
        guard let url = URL(string: resolvedURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--url must be an http or https address, such as \(Self.defaultURL); got \(resolvedURL)")
        }
    }

    private var resolvedAPIKey: String? {
        apiKey ?? ProcessInfo.processInfo.environment["TRANSFERD_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Runs `body` with a client for transferd; a failure is said in one line, and exits with its status.
    func run(_ body: (APIConnection) async throws -> Void) async throws {
        do {
            guard let apiKey = resolvedAPIKey else {
                throw CommandFailure.configuration(
                    "no API key: pass --api-key or set TRANSFERD_API_KEY (transferd prints an admin key at its first start)"
                )
            }
            try await APIConnection.with(baseURL: resolvedURL, apiKey: apiKey, body)
        } catch let failure as CommandFailure {
            Console.error(failure.message)
            throw ExitCode(failure.exitStatus)
        }
    }
}
