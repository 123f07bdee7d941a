import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore

// The least a webhook dispatcher can do on this machine: `sessions` senders, each POSTing `count` payloads one after
// another (one in flight per session, as transferd sends), signed as Standard Webhooks says, through
// AsyncHTTPClient, with no database, no outbox and nothing recorded. Its rate bounds what any dispatcher built on
// the same client can deliver here; the webhooks benchmark prints it beside transferd's.
//
//     webhook-reference URL SESSIONS COUNT
//
// Prints the deliveries a second and the CPU microseconds this process spent a delivery.

let arguments = CommandLine.arguments
let url = arguments[1]
let (sessions, count) = (Int(arguments[2]) ?? 100, Int(arguments[3]) ?? 100)
let key = SymmetricKey(size: .bits256)
let client = HTTPClient(eventLoopGroupProvider: .singleton)

/// A payload the size of a `task.created` delivery's.
func payload(session: Int, sequence: Int) -> ByteBuffer {
    let task =
        #"{"taskIdentifier":\#(sequence),"kind":"download","state":"suspended","#
        + #""url":"http://127.0.0.1:9/never","countOfBytesReceived":0}"#
    return ByteBuffer(
        string: #"{"type":"task.created","timestamp":"2026-11-29T20:00:00.000Z","#
            + #""data":{"sessionIdentifier":"hooks-\#(session)","sequence":\#(sequence),"task":\#(task)}}"#
    )
}

func send(session: Int, sequence: Int) async throws {
    let body = payload(session: session, sequence: sequence)
    let (id, timestamp) = ("msg_\(session)_\(sequence)", Int(Date().timeIntervalSince1970))
    var signed = ByteBuffer(string: "\(id).\(timestamp).")
    signed.writeImmutableBuffer(body)
    let signature = Data(HMAC<SHA256>.authenticationCode(for: Data(signed.readableBytesView), using: key)).base64EncodedString()
    var request = HTTPClientRequest(url: url)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/json")
    request.headers.add(name: "webhook-id", value: id)
    request.headers.add(name: "webhook-timestamp", value: String(timestamp))
    request.headers.add(name: "webhook-signature", value: "v1,\(signature)")
    request.body = .bytes(body)
    let response = try await client.execute(request, timeout: .seconds(30))
    for try await _ in response.body {}
    guard (200..<300).contains(response.status.code) else { throw Refused(status: response.status.code) }
}

/// The receiver answered a webhook other than 2xx: the run measures nothing.
struct Refused: Error {
    let status: UInt
}

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

// One round first, so that the connections are open before the time runs.
try await withThrowingTaskGroup { group in
    for session in 0..<sessions { group.addTask { try await send(session: session, sequence: 0) } }
    try await group.waitForAll()
}
let (started, cpu) = (ContinuousClock.now, cpuSeconds())
try await withThrowingTaskGroup { group in
    for session in 0..<sessions {
        group.addTask { for sequence in 1...count { try await send(session: session, sequence: sequence) } }
    }
    try await group.waitForAll()
}
let elapsed = ContinuousClock.now - started
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let deliveries = Double(sessions * count)
print(String(format: "%.0f %.0f", deliveries / seconds, (cpuSeconds() - cpu) * 1e6 / deliveries))
try await client.shutdown().get()
