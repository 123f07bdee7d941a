import Foundation
import Hummingbird
import NIOCore
import TransferdDomain
import TransferdEngine
import TransferdServices

/// Decodes JSON request bodies and turns every failure into a 4xx problem naming the offending field.
///
/// An empty body decodes as `{}`, so that bodies whose fields all have defaults may be left out.
package struct JSONRequestDecoder: RequestDecoder {
    package func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw Problem.contentTooLarge(limit: context.maxUploadSize)
        }
        if buffer.readableBytes == 0 {
            return try decode(type, from: Data("{}".utf8))
        }
        if let contentType = request.headers[.contentType], MediaType(from: contentType)?.isType(.applicationJson) != true {
            throw Problem.unsupportedMediaType("Request bodies must be `application/json`, not `\(contentType)`.")
        }
        return try decode(type, from: Data(buffer.readableBytesView))
    }

    private func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(Problem) -> T {
        do {
            return try JSONCoding.decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw Self.problem(for: error)
        } catch {
            throw .badRequest("The request body is not valid JSON.")
        }
    }

    package static func problem(for error: DecodingError) -> Problem {
        switch error {
        case .typeMismatch(let type, let context):
            return .invalidField(path(context.codingPath), "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return .invalidField(path(context.codingPath), "must be \(describe(type)), not null")
        case .keyNotFound(let key, let context):
            return .badRequest("`\(path(context.codingPath + [key]))` is required.")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return .badRequest("The request body is not valid JSON.")
        case .dataCorrupted(let context):
            return .invalidField(path(context.codingPath), "is not acceptable: \(context.debugDescription)")
        @unknown default:
            return .badRequest("The request body could not be decoded.")
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "(body)" : codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type: "an integer"
        case is Double.Type: "a number"
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is [String: String].Type: "an object of strings"
        default: String(describing: type).hasPrefix("Dictionary") ? "an object" : "a value of type \(type)"
        }
    }
}
