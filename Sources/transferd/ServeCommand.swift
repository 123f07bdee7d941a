import ArgumentParser
import Hummingbird
import TransferdDomain
import TransferdEngine
import TransferdServices

/// `transferd serve`: runs the API, the scheduler and its workers until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the transfer service.")

    @OptionGroup package var options: ServiceOptions

    func run() async throws {
        let app = try await buildApplication(configuration: options.configuration)
        try await app.runService()
    }
}
