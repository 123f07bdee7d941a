import CoreMetrics
import Prometheus
import TransferdDomain

/// The metrics of one running transferd, written in Prometheus's text format. They are recorded through
/// swift-metrics with a factory of their own, over a registry of their own, rather than a process-wide bootstrap,
/// so that every service in a process (the tests run many) counts apart. Labels take bounded values only: event
/// types, task kinds, error codes, route templates, methods and statuses, never ids or raw paths.
package final class ServiceMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    package init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500),
            .seconds(1), .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(3600),
        ]
        self.factory = factory
    }

    /// Counts a committed event: every one by type, and what it tells of tasks and bytes (`task.created` and
    /// `task.completed` by the task's kind and outcome, the bytes of `task.progress` and `task.upload_progress`).
    package func written(_ event: Event, kind: TransferTask.Kind?) {
        counter("transferd_events_written_total", [("type", event.type.rawValue)]).increment()
        let kind = [("kind", kind?.rawValue ?? "none")]
        switch event.type {
        case .taskCreated:
            counter("transferd_tasks_created_total", kind).increment()
        case .taskCompleted:
            let outcome = event.data.error.map(\.code.rawValue) ?? "success"
            counter("transferd_tasks_completed_total", kind + [("outcome", outcome)]).increment()
        case .taskProgress:
            counter("transferd_bytes_received_total").increment(by: max(0, event.data.bytesWritten ?? 0))
        case .taskUploadProgress:
            counter("transferd_bytes_sent_total").increment(by: max(0, event.data.bytesSent ?? 0))
        default:
            break
        }
    }

    /// Counts an answered HTTP request, by its route's template, and times it.
    package func answered(method: String, route: String, status: Int, after duration: Duration) {
        counter("transferd_http_requests_total", [("method", method), ("route", route), ("status", String(status))]).increment()
        CoreMetrics.Timer(label: "transferd_http_request_duration_seconds", dimensions: [("route", route)], factory: factory)
            .recordNanoseconds(duration.nanoseconds)
    }

    /// Everything recorded so far, in Prometheus's text exposition format.
    package func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    private func counter(_ name: String, _ labels: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: name, dimensions: labels, factory: factory)
    }
}

extension Duration {
    /// The whole nanoseconds of the duration.
    fileprivate var nanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
