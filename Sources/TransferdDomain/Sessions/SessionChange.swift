/// What may change on a live session (`PATCH /v1/sessions/{identifier}`): when its work reaches the client, not what
/// the work is. Fields left nil stay as they are.
package struct SessionChange: Sendable, Equatable {
    /// sessionSendsLaunchEvents: turned on, the events held back go out to the webhook in order.
    package var sessionSendsLaunchEvents: Bool?
    /// isDiscretionary: whether its transfers wait for the discretionary window.
    package var discretionary: Bool?

    package init(sessionSendsLaunchEvents: Bool? = nil, discretionary: Bool? = nil) {
        self.sessionSendsLaunchEvents = sessionSendsLaunchEvents
        self.discretionary = discretionary
    }
}
