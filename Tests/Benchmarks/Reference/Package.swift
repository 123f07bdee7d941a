// swift-tools-version:6.2
import PackageDescription

// The benchmarks' references, without transferd: what Hummingbird and SQLite alone answer on this machine
// (`reference`), and how many signed webhooks AsyncHTTPClient alone sends (`webhook-reference`).
let package = Package(
    name: "reference",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .executableTarget(
            name: "reference",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "webhook-reference",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ]
)
