// swift-tools-version:6.2
import Foundation
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let hummingbird = Target.Dependency.product(name: "Hummingbird", package: "hummingbird")
let asyncHTTPClient = Target.Dependency.product(name: "AsyncHTTPClient", package: "async-http-client")
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift")
let postgres = Target.Dependency.product(name: "PostgresNIO", package: "postgres-nio")
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let logging = Target.Dependency.product(name: "Logging", package: "swift-log")
let metrics = Target.Dependency.product(name: "CoreMetrics", package: "swift-metrics")
let prometheus = Target.Dependency.product(name: "Prometheus", package: "swift-prometheus")
let serviceLifecycle = Target.Dependency.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")
let compressNIO = Target.Dependency.product(name: "CompressNIO", package: "compress-nio")
let tracing = Target.Dependency.product(name: "Tracing", package: "swift-distributed-tracing")
let nio: [Target.Dependency] = [
    .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOPosix", package: "swift-nio"),
    .product(name: "NIOHTTP1", package: "swift-nio"),
    .product(name: "_NIOFileSystem", package: "swift-nio"),
]

// The layers, each allowed to import only those before it:
// JSON ← Domain ← Storage ← Engine ← Services ← API ← transferd (the command line and the one composition root);
// S3 stands apart, under Engine.
let package = Package(
    name: "transferd",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "transferd", targets: ["transferd"]),
        .executable(name: "transferctl", targets: ["transferctl"]),
        // transferd's API for other Swift programs: types and client generated from openapi.yaml.
        .library(name: "TransferdClient", targets: ["TransferdClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
        .package(url: "https://github.com/onevcat/Rainbow.git", from: "4.2.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // OTLP over HTTP only: the default traits add the gRPC exporter, and grpc-swift with it, to every build.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // JSON text written straight from `Encodable` values, and the UTC calendar arithmetic its dates use.
        .target(name: "TransferdJSON", swiftSettings: swiftSettings),
        // Values and rules, no I/O: tasks, sessions, background tasks and their state machines, events, errors,
        // the repository protocols.
        .target(
            name: "TransferdDomain",
            dependencies: ["TransferdJSON", crypto, tracing, .product(name: "HTTPTypes", package: "swift-http-types")],
            swiftSettings: swiftSettings
        ),
        // The repositories in SQL (all SQL lives here), the stores on SQLite and on PostgreSQL, and the files on disk.
        .target(
            name: "TransferdStorage",
            dependencies: ["TransferdJSON", "TransferdDomain", "TransferdMigrations", grdb, postgres, logging] + nio,
            swiftSettings: swiftSettings
        ),
        // The SQL migrations live at the top level (Migrations/*.sql for SQLite, Migrations/PostgreSQL/*.sql) and ship
        // as this target's resources.
        .target(
            name: "TransferdMigrations",
            path: "Migrations",
            resources: [
                .copy("0001_initial.sql"),
                .copy("0002_webhooks.sql"),
                .copy("0003_task_checksum.sql"),
                .copy("0004_task_schedule.sql"),
                .copy("0005_task_attempts.sql"),
                .copy("0006_resume.sql"),
                .copy("0007_uploads.sql"),
                .copy("0008_tenancy.sql"),
                .copy("0009_background_tasks.sql"),
                .copy("0010_queue_and_counts.sql"),
                .copy("0011_delivery_heads.sql"),
                .copy("0012_progress_coalescing.sql"),
                .copy("0013_leases.sql"),
                .copy("0014_event_traceparent.sql"),
                .copy("0015_dashboard_sessions.sql"),
                .copy("0016_redirect_policy.sql"),
                .copy("0017_launch_events.sql"),
                .copy("0018_task_metrics.sql"),
                .copy("0019_challenges.sql"),
                .copy("0020_sealed_secrets.sql"),
                .copy("0021_tenant_quotas.sql"),
                .copy("0022_claimable_tasks.sql"),
                .copy("0023_webhook_endpoints.sql"),
                .copy("0024_webhook_notices.sql"),
                .copy("0025_object_storages.sql"),
                .copy("0026_object_destinations.sql"),
                .copy("0027_staged_objects.sql"),
                .copy("0028_fetch_schedules.sql"),
                .copy("0029_tenant_fetch_quota.sql"),
                .copy("0030_abandoned_uploads.sql"),
                .copy("0031_reserved_bytes.sql"),
                .copy("0032_history.sql"),
                .copy("0033_task_trace.sql"),
                .copy("0034_tenant_bandwidth.sql"),
                .copy("0035_kept_ranges.sql"),
                .copy("PostgreSQL"),
            ],
            swiftSettings: swiftSettings
        ),
        // S3-compatible object storage: SigV4 signing and the S3 requests transferd makes. It knows nothing of transferd.
        .target(
            name: "TransferdS3",
            dependencies: [
                asyncHTTPClient, crypto, .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The scheduler, the runners and everything a transfer needs on its way; the owner of the active transfers.
        .target(
            name: "TransferdEngine",
            dependencies: [
                "TransferdDomain", "TransferdStorage", "TransferdS3", asyncHTTPClient, compressNIO, crypto, logging, serviceLifecycle,
                tracing,
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "NIOTLS", package: "swift-nio"),
            ] + nio,
            swiftSettings: swiftSettings
        ),
        // Task, session, background-task, file and webhook services, the dispatcher and the sweeper.
        .target(
            name: "TransferdServices",
            dependencies: [
                "TransferdJSON", "TransferdDomain", "TransferdStorage", "TransferdEngine", "TransferdS3", asyncHTTPClient, crypto, logging,
                serviceLifecycle, metrics, prometheus, tracing,
            ]
                + nio,
            swiftSettings: swiftSettings
        ),
        // The HTTP API: controllers by resource, their request and response types, problems, middleware; and the
        // dashboard (UI/), whose templates and assets are compiled into the binary.
        .target(
            name: "TransferdAPI",
            dependencies: [
                "TransferdJSON", "TransferdDomain", "TransferdServices", "TransferdS3", hummingbird,
                crypto,
                logging, metrics, tracing, .product(name: "Mustache", package: "swift-mustache"),
            ]
                + nio,
            resources: [
                .embedInCode("UI/Templates/layout.mustache"),
                .embedInCode("UI/Templates/signin.mustache"),
                .embedInCode("UI/Templates/sessions.mustache"),
                .embedInCode("UI/Templates/session.mustache"),
                .embedInCode("UI/Templates/message.mustache"),
                .embedInCode("UI/Templates/deletesession.mustache"),
                .embedInCode("UI/Templates/sessiontabs.mustache"),
                .embedInCode("UI/Templates/taskrow.mustache"),
                .embedInCode("UI/Templates/webhook.mustache"),
                .embedInCode("UI/Templates/task.mustache"),
                .embedInCode("UI/Templates/deliveries.mustache"),
                .embedInCode("UI/Templates/backgroundtasks.mustache"),
                .embedInCode("UI/Templates/fetches.mustache"),
                .embedInCode("UI/Templates/files.mustache"),
                .embedInCode("UI/Templates/keys.mustache"),
                .embedInCode("UI/Assets/dashboard.css"),
                .embedInCode("UI/Assets/dashboard.js"),
            ],
            swiftSettings: swiftSettings
        ),
        // The API's client, generated from openapi.yaml by Scripts/generate-client and committed, so that builds do not
        // run the generator. It depends on no module of the server's.
        .target(
            name: "TransferdClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"), asyncHTTPClient,
            ],
            exclude: ["openapi-generator-config.yaml", "Generated/SOURCE"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "transferd",
            dependencies: [
                "TransferdDomain", "TransferdStorage", "TransferdEngine", "TransferdServices", "TransferdAPI", hummingbird, logging,
                serviceLifecycle, .product(name: "UnixSignals", package: "swift-service-lifecycle"), crypto, tracing,
                .product(name: "ArgumentParser", package: "swift-argument-parser"), .product(name: "OTel", package: "swift-otel"),
            ] + nio,
            swiftSettings: swiftSettings
        ),
        // The command-line client: speaks only the HTTP API (AsyncHTTPClient; Server-Sent Events read by
        // OpenAPIRuntime's decoder) and reads its answers into TransferdClient's types; draws progress for people and
        // prints the API's JSON for scripts.
        .executableTarget(
            name: "transferctl",
            dependencies: [
                "TransferdClient", asyncHTTPClient, crypto, .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"), .product(name: "Rainbow", package: "Rainbow"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ] + nio,
            swiftSettings: swiftSettings
        ),
        // Unit tests of the layers that need no server: each imports only its module and what that module imports.
        .testTarget(name: "TransferdJSONTests", dependencies: ["TransferdJSON"], swiftSettings: swiftSettings),
        // What tests of every layer share: data directories, waiting for a condition, the tests' vault.
        .target(
            name: "TransferdTestSupport",
            dependencies: [
                "TransferdDomain", crypto, asyncHTTPClient, .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TransferdTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TransferdStorageTests",
            dependencies: ["TransferdStorage", "TransferdDomain", "TransferdTestSupport", grdb, postgres, logging],
            swiftSettings: swiftSettings
        ),
        // The signer against AWS's examples and botocore, the client against moto's S3 server.
        .testTarget(
            name: "TransferdS3Tests",
            dependencies: [
                "TransferdS3", "TransferdTestSupport", asyncHTTPClient, crypto, .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TransferdDomainTests",
            dependencies: ["TransferdDomain", "TransferdJSON", crypto],
            resources: [.copy("Events/recorded-events.tsv")],
            swiftSettings: swiftSettings
        ),
        // The tests' HTTP origin on 127.0.0.1, with faults on demand, and the content it serves.
        .target(
            name: "TransferdTestOrigins",
            dependencies: [
                "TransferdDomain", hummingbird, .product(name: "HummingbirdCore", package: "hummingbird"), logging, serviceLifecycle,
                compressNIO, crypto, .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/TransferdTestOrigins",
            swiftSettings: swiftSettings
        ),
        // The engine's parts without the service: its machines, its queue's cues, what an attempt ends as, its
        // runners against the test origin.
        .testTarget(
            name: "TransferdEngineTests",
            dependencies: [
                "TransferdEngine", "TransferdDomain", "TransferdStorage", "TransferdTestSupport", "TransferdTestOrigins",
                asyncHTTPClient, crypto,
            ],
            swiftSettings: swiftSettings
        ),
        // The services' parts over a store of their own, without the API or an origin: gathering, group commits.
        .testTarget(
            name: "TransferdServicesTests",
            dependencies: ["TransferdServices", "TransferdStorage", "TransferdDomain", "TransferdTestSupport"],
            swiftSettings: swiftSettings
        ),
        // The API's answers through its router, in process, over the services the composition root builds on SQLite.
        .testTarget(
            name: "TransferdAPITests",
            dependencies: [
                "transferd", "TransferdTestSupport", hummingbird, .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "NIOCore", package: "swift-nio"), logging,
            ],
            swiftSettings: swiftSettings
        ),
        // End to end: the real service, binaries and servers.
        .testTarget(
            name: "TransferdTests",
            dependencies: [
                "transferd", "transferctl", "TransferdClient", "TransferdTestSupport", "TransferdTestOrigins", "TransferdJSON",
                "TransferdDomain",
                "TransferdStorage", "TransferdEngine", "TransferdS3",
                "TransferdServices",
                "TransferdAPI",
                hummingbird, .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                asyncHTTPClient, compressNIO, crypto, grdb, postgres, logging, serviceLifecycle, .product(name: "Yams", package: "Yams"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ] + nio,
            exclude: ["Fixtures"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
)

// `TRANSFERD_UNITS=1 swift test --scratch-path .build-units`: the layers' own tests alone (JSON, domain, storage, S3,
// engine, services and the API through its router, with their targets), without transferctl, the client and the
// end-to-end suite. SwiftPM links
// every test target of a package into one binary, so this is the way to run the fast ones after a change to an
// interface below them.
if ProcessInfo.processInfo.environment["TRANSFERD_UNITS"] != nil {
    let units: Set = [
        "TransferdJSON", "TransferdDomain", "TransferdStorage", "TransferdMigrations", "TransferdTestSupport", "TransferdJSONTests",
        "TransferdDomainTests", "TransferdStorageTests", "TransferdS3", "TransferdS3Tests", "TransferdEngine", "TransferdServices",
        "TransferdTestOrigins", "TransferdEngineTests", "TransferdServicesTests", "TransferdAPI", "transferd", "TransferdAPITests",
    ]
    package.targets.removeAll { !units.contains($0.name) }
    package.products.removeAll()
}
