import Foundation
import OTel
import ServiceLifecycle
import Tracing

/// OpenTelemetry traces, exported over OTLP/HTTP by swift-otel: off unless an endpoint is given, by `--otlp-endpoint`
/// or OpenTelemetry's own variables (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`). The other
/// standard variables (`OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`,
/// `OTEL_RESOURCE_ATTRIBUTES`, …) apply on top of the flags, as in OpenTelemetry's SDKs. Only traces: logs stay
/// transferd's own (with the trace ids in them), and metrics Prometheus's.
struct TraceExport: Sendable {
    /// The base URL given by `--otlp-endpoint` (spans go to its `/v1/traces`); nil: the environment's.
    var endpoint: String?
    /// The share of new traces recorded (`--trace-sample-ratio`); a request's `traceparent` decides for its own.
    var sampleRatio: Double

    /// The export `--otlp-endpoint` and `environment` ask for; nil when they give no endpoint, or disable the SDK.
    static func configured(endpoint: String, sampleRatio: Double, environment: [String: String]) -> TraceExport? {
        let disabled =
            environment["OTEL_SDK_DISABLED"]?.lowercased() == "true" || environment["OTEL_TRACES_EXPORTER"]?.lowercased() == "none"
        let fromEnvironment = ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"].contains {
            !(environment[$0] ?? "").isEmpty
        }
        guard !disabled, !endpoint.isEmpty || fromEnvironment else { return nil }
        return TraceExport(endpoint: endpoint.isEmpty ? nil : endpoint, sampleRatio: sampleRatio)
    }

    /// Makes the process's tracer OpenTelemetry's, for `instanceID`; returns the service that exports what it
    /// records, to run before the application's (it stops after, flushing the last spans). Once per process: every
    /// HTTP client made afterwards traces its requests.
    func start(instanceID: String) throws -> some Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "transferd"
        configuration.resourceAttributes["service.instance.id"] = instanceID
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        if let sampler = OTel.Configuration.TracesConfiguration.SamplerConfiguration.parentBasedTraceIDRatio(ratio: sampleRatio) {
            configuration.traces.sampler = sampler
        }
        if let endpoint {
            configuration.traces.otlpExporter.endpoint = endpoint.hasSuffix("/") ? "\(endpoint)v1/traces" : "\(endpoint)/v1/traces"
        }
        let backend = try OTel.makeTracingBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(backend.factory)
        return backend.service
    }
}
