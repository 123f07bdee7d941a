import Foundation
import Hummingbird
import NIOCore
import TransferdDomain
import TransferdJSON

/// Decodes JSON request bodies and turns every failure into a 4xx problem naming the offending field. A body must be
/// strict JSON (`StrictJSON`): a text that is not is refused with the position where it stops being JSON.
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

    private func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        do {
            try StrictJSON.validate(data)
        } catch {
            throw DomainError.badRequest("The request body is not valid JSON: \(error).")
        }
        do {
            return try JSONCoding.decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw Self.refusal(for: error)
        }
    }

    /// What a decoding failure says to the client, naming the field; `under` leaves out the first keys of its path
    /// (those of the batch an item was decoded from).
    static func refusal(for error: DecodingError, under depth: Int = 0) -> DomainError {
        switch error {
        case .typeMismatch(let type, let context):
            .invalidField(path(context.codingPath.dropFirst(depth)), requirement: "must be \(describe(type))")
        case .valueNotFound(let type, let context):
            .invalidField(path(context.codingPath.dropFirst(depth)), requirement: "must be \(describe(type)), not null")
        case .keyNotFound(let key, let context):
            .badRequest("`\(path(context.codingPath.dropFirst(depth) + [key]))` is required.")
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            .badRequest("The request body is not valid JSON.")
        case .dataCorrupted(let context):
            .invalidField(path(context.codingPath.dropFirst(depth)), requirement: "is not acceptable: \(context.debugDescription)")
        @unknown default:
            .badRequest("The request body could not be decoded.")
        }
    }

    private static func path(_ codingPath: some Collection<any CodingKey>) -> String {
        guard !codingPath.isEmpty else { return "(body)" }
        return codingPath.reduce("") { path, key in
            if let index = key.intValue { return path + "[\(index)]" }
            return path.isEmpty ? key.stringValue : path + "." + key.stringValue
        }
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
