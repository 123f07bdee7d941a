import Foundation
import Testing
import TransferdTestOrigins

/// sessionSendsLaunchEvents: a session that does not send launch events keeps its events in the log, readable, and
/// pushes none to its webhook until it is turned on; then every held event goes out, in order.
@Suite struct LaunchEventsTests {
    @Test func heldEventsAreReadableAndGoOutInOrderOnceTurnedOn() async throws {
        try await OriginServer.with { origin in
            try await WebhookReceiver.with { receiver in
                try await TestService.with { api in
                    let webhook = #""webhook": {"url": "\#(receiver.url)"}"#
                    let quiet = try await api.createSession("quiet", configuration: #"{"sessionSendsLaunchEvents": false, \#(webhook)}"#)
                    try await api.createSession("loud", configuration: "{\(webhook)}")
                    _ = try await api.createTask("quiet", url: origin.url("/files/4096"))
                    try await api.waitForCompletion("quiet", 1)
                    _ = try await api.createTask("loud", url: origin.url("/files/4096"))
                    try await api.waitForCompletion("loud", 1)

                    // verify: the loud session's events went out, after the quiet one's were written, and none of these
                    try await api.waitUntilAllAcknowledged("loud")
                    #expect(quiet.configuration.value1.sessionSendsLaunchEvents == false)
                    #expect(!receiver.received.contains { $0.session == "quiet" }, "held back")
                    let held = try await api.allEvents("quiet")
                    #expect(held.map(\.type).contains("task.completed"), "readable by polling")
                    // A checkpoint's progress (a loaded machine makes one) is superseded by the last progress, whose
                    // delivery replaces its pending one: every other event is queued.
                    let superseded = Set(
                        held.filter { $0.type == "task.progress" }.dropLast().map(\.sequence)
                    )
                    let queued = held.map(\.sequence).filter { !superseded.contains($0) }
                    #expect(try await api.session("quiet").pendingDeliveries == queued.count)

                    // act: turn launch events on
                    let turnedOn = try await api.send(.PATCH, "/v1/sessions/quiet", json: #"{"sessionSendsLaunchEvents": true}"#)
                    try await api.waitUntilAllAcknowledged("quiet")

                    // verify: every queued event, in order, exactly once
                    #expect(turnedOn.status == 200)
                    #expect(try turnedOn.decode(SessionView.self).configuration.value1.sessionSendsLaunchEvents == true)
                    let sent = receiver.acknowledged.filter { $0.session == "quiet" }.map(\.sequence)
                    #expect(sent == queued, "\(sent)")
                }
            }
        }
    }

    @Test func onlyWhenWorkReachesTheClientChangesOnALiveSession() async throws {
        try await TestService.with { api in
            try await api.createSession("fixed")

            // act
            let other = try await api.send(.PATCH, "/v1/sessions/fixed", json: #"{"maximumConnectionsPerHost": 2}"#)
            let wrongType = try await api.send(.PATCH, "/v1/sessions/fixed", json: #"{"sessionSendsLaunchEvents": "yes"}"#)
            _ = try await api.send(.POST, "/v1/sessions/fixed/invalidate")
            let invalidated = try await api.send(.PATCH, "/v1/sessions/fixed", json: #"{"sessionSendsLaunchEvents": false}"#)

            // verify
            #expect(other.status == 400)
            #expect(
                other.problem?.detail
                    == "`maximumConnectionsPerHost` cannot change on a live session; only `discretionary` and `sessionSendsLaunchEvents` can."
            )
            #expect(wrongType.status == 400 && wrongType.problem?.detail == "`sessionSendsLaunchEvents` must be a boolean.")
            #expect(invalidated.status == 409)
        }
    }
}
