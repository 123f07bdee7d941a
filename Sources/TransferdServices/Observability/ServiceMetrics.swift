import CoreMetrics
import Foundation
import Prometheus
import Synchronization
import TransferdDomain

/// The metrics of one running transferd, written in Prometheus's text format. They are recorded through
/// swift-metrics with a factory of their own, over a registry of their own, rather than a process-wide bootstrap,
/// so that every service in a process (the tests run many) counts apart. Labels take bounded values only: event
/// types, task kinds, error codes, route templates, methods and statuses, never ids or raw paths.
package final class ServiceMetrics: Sendable {
    private let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory
    private let counters = Mutex<[Series: CoreMetrics.Counter]>([:])
    private let timers = Mutex<[Series: CoreMetrics.Timer]>([:])
    /// The totals counted elsewhere that the last scrape saw.
    private let totals = Mutex<[Series: Int]>([:])
    /// The CPU time the last scrape saw, for the counter of CPU seconds.
    private let cpuSeconds = Mutex(0.0)
    private let started = Date()

    package init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500),
            .seconds(1), .seconds(5), .seconds(30), .seconds(120), .seconds(600), .seconds(3600),
        ]
        self.factory = factory
        // Counters without labels are served from the start, at 0, so that rates over them exist at once.
        for name in ["transferd_bytes_received_total", "transferd_bytes_sent_total"] { counter(name).increment(by: 0) }
    }

    /// Counts a committed event: every one by type, and what it tells of tasks and bytes (`task.created` and
    /// `task.completed` by the task's kind and outcome, the bytes of `task.progress` and `task.upload_progress`).
    package func written(_ event: Event, kind: TransferTask.Kind?) {
        counter("transferd_events_written_total", [("type", event.type.rawValue)]).increment()
        let kind = [("kind", kind?.rawValue ?? "none")]
        switch event.payload {
        case .taskCreated:
            counter("transferd_tasks_created_total", kind).increment()
        case .taskCompleted(let completion):
            let outcome = completion.error.map(\.code.rawValue) ?? "success"
            counter("transferd_tasks_completed_total", kind + [("outcome", outcome)]).increment()
        case .taskProgress(let progress):
            counter("transferd_bytes_received_total").increment(by: max(0, progress.bytesWritten))
        case .taskUploadProgress(let progress):
            counter("transferd_bytes_sent_total").increment(by: max(0, progress.bytesSent))
        default:
            break
        }
    }

    /// Counts an answered HTTP request, by its route's template, and times it.
    package func answered(method: String, route: String, status: Int, after duration: Duration) {
        counter("transferd_http_requests_total", [("method", method), ("route", route), ("status", String(status))]).increment()
        timer("transferd_http_request_duration_seconds", [("route", route)])
            .recordNanoseconds(Int64(duration.timeInterval * 1e9))
    }

    /// Counts a transfer attempt's end by its outcome (`succeeded`, `interrupted`, or the error code it failed with),
    /// and times it from its claim.
    package func attemptEnded(_ outcome: TaskStateMachine.TransferOutcome, after duration: Duration) {
        let label =
            switch outcome {
            case .succeeded: "succeeded"
            case .interrupted: "interrupted"
            case .challenged: "challenged"
            case .failed(let error): error.code.rawValue
            }
        counter("transferd_transfer_attempts_total", [("outcome", label)]).increment()
        timer("transferd_transfer_duration_seconds").recordNanoseconds(
            Int64(duration.timeInterval * 1e9)
        )
    }

    /// Counts a webhook delivery's answer by what it made of the delivery (`delivered`, `retrying`, `failed`), and
    /// times a delivered one from its event's commit.
    package func delivered(_ status: Delivery.Status, eventWrittenAt written: Date, at now: Date) {
        let outcome =
            switch status {
            case .delivered: "delivered"
            case .pending: "retrying"
            case .failed, .coalesced: "failed"
            }
        counter("transferd_webhook_deliveries_total", [("outcome", outcome)]).increment()
        guard status == .delivered else { return }
        timer("transferd_webhook_delivery_latency_seconds")
            .recordNanoseconds(Int64(max(0, now.timeIntervalSince(written)) * 1e9))
    }

    /// Counts bytes refused room for the tenant's quota of stored bytes, by how they were to be stored.
    package func storageRefused(_ path: StoringPath) {
        counter("transferd_stored_bytes_refused_total", [("path", path.rawValue)]).increment()
    }

    /// A background loop (named by its purpose) ran a pass: a loop whose count stops moving is stuck.
    package func loopPassed(_ loop: String) {
        counter("transferd_loop_passes_total", [("loop", loop)]).increment()
    }

    /// Counts rows of history removed past keeping, by table.
    package func historyRemoved(_ table: String, _ rows: Int) {
        guard rows > 0 else { return }
        counter("transferd_history_rows_removed_total", [("table", table)]).increment(by: rows)
    }

    /// A multipart upload given up after its store failed to abort it too often.
    package func uploadAbortGivenUp() {
        counter("transferd_object_upload_aborts_given_up_total").increment()
    }

    /// Moves a counter to `total`, a count kept elsewhere (the store's), by what it grew since the last scrape.
    package func count(_ name: String, _ labels: [(String, String)], total: Int) {
        let series = Series(name, labels)
        let added = totals.withLock { totals in
            defer { totals[series] = max(totals[series, default: 0], total) }
            return max(0, total - totals[series, default: 0])
        }
        counter(name, labels).increment(by: added)
    }

    /// Sets a gauge a scrape samples.
    package func set(_ name: String, _ labels: [(String, String)] = [], to value: Double) {
        Gauge(label: name, dimensions: labels, factory: factory).record(value)
    }

    /// The process's own figures, as Prometheus's clients name them: CPU seconds, resident memory, open file
    /// descriptors and start time (of this service), read from `/proc/self`.
    package func sampleProcess() {
        let stat = (try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8)) ?? ""
        // After the command's name (in parentheses), utime and stime are the 12th and 13th fields, in clock ticks.
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        if fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) {
            let total = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
            let added = cpuSeconds.withLock { last in
                defer { last = max(last, total) }
                return max(0, total - last)
            }
            FloatingPointCounter(label: "process_cpu_seconds_total", factory: factory).increment(by: added)
        }
        let statm = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8)) ?? ""
        if let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) {
            set("process_resident_memory_bytes", to: pages * Double(sysconf(Int32(_SC_PAGESIZE))))
        }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        set("process_open_fds", to: Double(descriptors))
        set("process_start_time_seconds", to: started.timeIntervalSince1970)
    }

    /// Everything recorded so far, in Prometheus's text exposition format.
    package func exposition() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// The counter of a series, made once: making one looks it up in the registry (and checks its names) every time,
    /// which a request or an event must not pay.
    private func counter(_ name: String, _ labels: [(String, String)] = []) -> CoreMetrics.Counter {
        let series = Series(name, labels)
        return counters.withLock { counters in
            if let counter = counters[series] { return counter }
            let counter = CoreMetrics.Counter(label: name, dimensions: labels, factory: factory)
            counters[series] = counter
            return counter
        }
    }

    /// The timer (a histogram of durations) of a series, made once.
    private func timer(_ name: String, _ labels: [(String, String)] = []) -> CoreMetrics.Timer {
        let series = Series(name, labels)
        return timers.withLock { timers in
            if let timer = timers[series] { return timer }
            let timer = CoreMetrics.Timer(label: name, dimensions: labels, factory: factory)
            timers[series] = timer
            return timer
        }
    }

    /// A metric's name and labels: what its handle is kept under.
    private struct Series: Hashable {
        let name: String
        let labels: [String]

        init(_ name: String, _ labels: [(String, String)]) {
            self.name = name
            self.labels = labels.flatMap { [$0.0, $0.1] }
        }
    }
}
