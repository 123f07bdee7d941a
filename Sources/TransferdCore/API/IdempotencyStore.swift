import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird

/// `Idempotency-Key` on creating requests: a retry with the same key and the same request within 24 hours gets the
/// original response (same status, same resource) instead of creating again; the same key with another request is
/// 422, and a retry while the first is still being handled is 409. Only successful creations are kept, so a
/// request that failed may simply be retried.
struct IdempotencyStore: Sendable {
    static let lifetime: TimeInterval = 86_400

    /// What identifies "the same request": its JSON body, or for file uploads (whose bodies may be huge) the
    /// headers that describe the file.
    enum Fingerprint {
        case body
        case headers([HTTPField.Name])
    }

    let database: AppDatabase

    /// Runs `create` once per key; without an `Idempotency-Key` it just runs.
    func once(
        _ request: Request,
        context: AppRequestContext,
        fingerprint: Fingerprint = .body,
        create: (Request) async throws -> BufferedResponse
    ) async throws -> Response {
        guard let key = request.headers[.idempotencyKey] else { return try await create(request).response }
        guard (1...255).contains(key.utf8.count), key.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw Problem.invalidField("Idempotency-Key", "must be 1 to 255 printable ASCII characters")
        }
        var request = request
        var hasher = SHA256()
        hasher.update(data: Data("\(request.method) \(request.uri.path)\n".utf8))
        switch fingerprint {
        case .body:
            let body = try await request.collectBody(upTo: context.maxUploadSize)
            body.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        case .headers(let names):
            for name in names { hasher.update(data: Data("\(name): \(request.headers[name] ?? "")\n".utf8)) }
        }
        let digest = hasher.finalize().hex
        if let replay = try await reserve(key, tenantID: context.tenantID, fingerprint: digest) { return replay.response }
        do {
            let created = try await create(request)
            try await keep(created, key: key, tenantID: context.tenantID)
            return created.response
        } catch {
            try? await release(key, tenantID: context.tenantID)
            throw error
        }
    }

    /// Claims the key for this request, or returns the kept response of the first one.
    private func reserve(_ key: String, tenantID: Int64, fingerprint: String) async throws -> BufferedResponse? {
        try await database.pool.write { db in
            let cutoff = Date().addingTimeInterval(-Self.lifetime)
            try db.execute(
                sql: "DELETE FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND created_at < ?",
                arguments: [tenantID, key, cutoff]
            )
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT * FROM idempotency_keys WHERE tenant_id = ? AND key = ?",
                    arguments: [tenantID, key]
                )
            else {
                try db.execute(
                    sql: "INSERT INTO idempotency_keys (tenant_id, key, fingerprint, created_at) VALUES (?, ?, ?, ?)",
                    arguments: [tenantID, key, fingerprint, Date()]
                )
                return nil
            }
            guard row["fingerprint"] as String == fingerprint else {
                throw Problem(
                    status: .unprocessableContent,
                    slug: "idempotency-key-reused",
                    title: "Idempotency-Key reused",
                    detail: "This Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new request."
                )
            }
            guard let status = row["status"] as Int? else {
                throw Problem.conflict("A request with this Idempotency-Key is still being handled; retry when it has answered.")
            }
            let pairs = try JSONDecoder().decode([[String]].self, from: Data((row["headers"] as String? ?? "[]").utf8))
            var headers = HTTPFields()
            for pair in pairs where pair.count == 2 {
                if let name = HTTPField.Name(pair[0]) { headers.append(HTTPField(name: name, value: pair[1])) }
            }
            let body: Data = row["body"] ?? Data()
            return BufferedResponse(status: HTTPResponse.Status(code: status), headers: headers, body: ByteBuffer(bytes: body))
        }
    }

    private func keep(_ response: BufferedResponse, key: String, tenantID: Int64) async throws {
        let headers = String(decoding: try JSONEncoder().encode(response.headers.map { [$0.name.rawName, $0.value] }), as: UTF8.self)
        try await database.pool.write { db in
            try db.execute(
                sql: "UPDATE idempotency_keys SET status = ?, headers = ?, body = ? WHERE tenant_id = ? AND key = ?",
                arguments: [response.status.code, headers, Data(response.body.readableBytesView), tenantID, key]
            )
        }
    }

    private func release(_ key: String, tenantID: Int64) async throws {
        try await database.pool.write { db in
            try db.execute(
                sql: "DELETE FROM idempotency_keys WHERE tenant_id = ? AND key = ? AND status IS NULL",
                arguments: [tenantID, key]
            )
        }
    }
}

extension HTTPField.Name {
    static let idempotencyKey = Self("Idempotency-Key")!
}
