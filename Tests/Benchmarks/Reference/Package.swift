// swift-tools-version:6.2
import PackageDescription

// The API benchmark's reference: what Hummingbird and SQLite alone answer on this machine, without transferd.
let package = Package(
    name: "reference",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "reference",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        )
    ]
)
