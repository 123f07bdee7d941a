// swift-tools-version:6.2
import Foundation
import PackageDescription

// The unit layers alone: the JSON, domain and storage targets and their unit tests, from the main package's own
// directories (linked here), so that `swift test --package-path Units` builds and runs them without the engine, the
// services, the API and the end-to-end suite. SwiftPM links every test target of a package into one binary; this
// package is the way to run the fast ones after a change to an interface below them. CI runs them in the main
// package, with everything else.

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]
let crypto = Target.Dependency.product(name: "Crypto", package: "swift-crypto")
let nio: [Target.Dependency] = ["NIOCore", "NIOPosix", "NIOHTTP1", "_NIOFileSystem"].map { .product(name: $0, package: "swift-nio") }
let storage: [Target.Dependency] = [
    .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
    .product(name: "Logging", package: "swift-log"),
]
// Every SQLite migration, and PostgreSQL's folder, as the main package ships them.
let migrations =
    try FileManager.default.contentsOfDirectory(atPath: Context.packageDirectory + "/Migrations")
    .filter { $0.hasSuffix(".sql") }.sorted().map { Resource.copy($0) } + [.copy("PostgreSQL")]

let package = Package(
    name: "transferd-units",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        .target(name: "TransferdJSON", swiftSettings: swiftSettings),
        .target(
            name: "TransferdDomain",
            dependencies: ["TransferdJSON", crypto, .product(name: "HTTPTypes", package: "swift-http-types")],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "TransferdStorage",
            dependencies: ["TransferdJSON", "TransferdDomain", "TransferdMigrations"] + storage + nio,
            swiftSettings: swiftSettings
        ),
        .target(name: "TransferdMigrations", path: "Migrations", resources: migrations, swiftSettings: swiftSettings),
        .target(
            name: "TransferdTestSupport",
            dependencies: ["TransferdDomain", crypto],
            path: "Tests/TransferdTestSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "TransferdJSONTests", dependencies: ["TransferdJSON"], swiftSettings: swiftSettings),
        .testTarget(
            name: "TransferdDomainTests",
            dependencies: ["TransferdDomain", "TransferdJSON", crypto],
            resources: [.copy("Events/recorded-events.tsv")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "TransferdStorageTests",
            dependencies: ["TransferdStorage", "TransferdDomain", "TransferdTestSupport"] + storage,
            swiftSettings: swiftSettings
        ),
    ]
)
