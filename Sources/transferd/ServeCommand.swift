import ArgumentParser
import Hummingbird
import ServiceLifecycle
import TransferdDomain
import TransferdEngine
import TransferdServices
import UnixSignals

/// `transferd serve`: runs the API, the scheduler and its workers until SIGTERM or SIGINT, then stops them within
/// `--shutdown-grace` (``ShutdownGrace``).
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "serve", abstract: "Run the transfer service.")

    @OptionGroup package var options: ServiceOptions

    func run() async throws {
        try await Self.serve(options)
    }

    /// Builds the service `options` describe and runs it until SIGTERM or SIGINT and its grace.
    /// With tracing on, the tracer is bootstrapped first, so that every HTTP client the application makes traces its
    /// requests, and its exporter stops last.
    static func serve(_ options: ServiceOptions) async throws {
        let configuration = options.configuration
        let traces: [any Service] = try configuration.traceExport.map { [try $0.start(instanceID: configuration.instance.id)] } ?? []
        let app = try await buildApplication(configuration: configuration)
        let grace = ShutdownGrace(total: .milliseconds(Int64(options.shutdownGrace * 1000)))
        var group = ServiceGroupConfiguration(services: traces + [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger)
        group.maximumGracefulShutdownDuration = grace.graceful
        group.maximumCancellationDuration = grace.cancellation
        try await ServiceGroup(configuration: group).run()
    }
}
