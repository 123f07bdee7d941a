import Foundation
import Testing
import TransferdTestOrigins

/// The dashboard's forms that change state, as a browser without JavaScript sends them: each needs the session's
/// CSRF token, acts as the API would, and sends the browser back; a refusal is a page with the API's detail.
@Suite struct DashboardActionsTests {
    @Test func aDownloadIsEnqueuedThroughTheFormAndABadURLShowsTheAPIsDetail() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("form")
                let browser = DashboardClient(api)
                let csrf = try await browser.signIn()

                // act
                let enqueued = try await browser.post(
                    "/ui/sessions/form/tasks",
                    form: ["csrf": csrf, "url": origin.url("/files/4096"), "taskDescription": "from the form"]
                )
                let bad = try await browser.post("/ui/sessions/form/tasks", form: ["csrf": csrf, "url": "ftp://example.com/x"])
                let blocked = try await browser.post(
                    "/ui/sessions/form/tasks",
                    form: ["csrf": csrf, "url": "http://169.254.169.254/latest"]
                )
                let forged = try await browser.post("/ui/sessions/form/tasks", form: ["url": origin.url("/files/1")])

                // verify: the task exists as the API made it, and each refusal shows the API's problem detail
                #expect(
                    enqueued.status == 303 && enqueued.location == "/ui/sessions/form",
                    "\(enqueued.status) \(enqueued.problem ?? enqueued.text)"
                )
                let task = try await api.waitForCompletion("form", 1)
                #expect(task.taskDescription == "from the form" && task.countOfBytesReceived == 4096)
                let direct = try await api.send(
                    .POST,
                    "/v1/sessions/form/tasks",
                    json: #"{"kind": "download", "url": "ftp://example.com/x"}"#
                )
                #expect(bad.status == direct.status && bad.status == 400)
                #expect(bad.problem != nil && bad.problem == direct.problem?.detail, "\(bad.text)")
                let directlyBlocked = try await api.send(
                    .POST,
                    "/v1/sessions/form/tasks",
                    json: #"{"kind": "download", "url": "http://169.254.169.254/latest"}"#
                )
                #expect(blocked.status == directlyBlocked.status && blocked.problem == directlyBlocked.problem?.detail, "\(blocked.text)")
                #expect(
                    forged.status == 403
                        && forged.problem == "The form was not sent by this dashboard (its CSRF token is missing or wrong)."
                )
                #expect(try await api.tasks("form").count == 1, "nothing else was created")
            }
        }
    }

    @Test func aFetchIsScheduledThroughTheFormAndABadOneShowsTheAPIsDetail() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("feeds")
                let browser = DashboardClient(api)
                let csrf = try await browser.signIn()

                // act
                let scheduled = try await browser.post(
                    "/ui/sessions/feeds/fetches",
                    form: ["csrf": csrf, "url": origin.url("/feed/form"), "interval": "900", "taskDescription": "from the form"]
                )
                let tooOften = try await browser.post(
                    "/ui/sessions/feeds/fetches",
                    form: ["csrf": csrf, "url": origin.url("/feed/other"), "interval": "5"]
                )
                let notANumber = try await browser.post(
                    "/ui/sessions/feeds/fetches",
                    form: ["csrf": csrf, "url": origin.url("/feed/other"), "interval": "soon"]
                )
                let blocked = try await browser.post(
                    "/ui/sessions/feeds/fetches",
                    form: ["csrf": csrf, "url": "http://169.254.169.254/latest", "interval": "900"]
                )
                let forged = try await browser.post("/ui/sessions/feeds/fetches", form: ["url": origin.url("/feed/x"), "interval": "900"])
                let page = try await browser.get("/ui/sessions/feeds/fetches")

                // verify: the schedule exists as the API makes it, and each refusal shows the API's problem detail
                #expect(
                    scheduled.status == 303 && scheduled.location == "/ui/sessions/feeds/fetches",
                    "\(scheduled.status) \(scheduled.text)"
                )
                let fetches = try await api.send(.GET, "/v1/sessions/feeds/fetches").decode(FetchListView.self).items
                #expect(fetches.count == 1 && fetches.first?.interval == 900 && fetches.first?.taskDescription == "from the form")
                #expect(
                    page.text.contains("/feed/form")
                        && page.text.contains(#"<form class="enqueue" method="post" action="/ui/sessions/feeds/fetches">"#)
                )
                let direct = try await api.send(
                    .POST,
                    "/v1/sessions/feeds/fetches",
                    json: #"{"url": "\#(origin.url("/feed/other"))", "interval": 5}"#
                )
                #expect(tooOften.status == direct.status && tooOften.problem == direct.problem?.detail, "\(tooOften.text)")
                #expect(notANumber.status == 400 && notANumber.problem?.contains("interval") == true, "\(notANumber.text)")
                let directlyBlocked = try await api.send(
                    .POST,
                    "/v1/sessions/feeds/fetches",
                    json: #"{"url": "http://169.254.169.254/latest", "interval": 900}"#
                )
                #expect(blocked.status == directlyBlocked.status && blocked.problem == directlyBlocked.problem?.detail, "\(blocked.text)")
                #expect(forged.status == 403)
                #expect(try await api.send(.GET, "/v1/sessions/feeds/fetches").decode(FetchListView.self).items.count == 1)
            }
        }
    }

    @Test func tasksAreSuspendedResumedAndCancelledThroughTheirForms() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("acts")
                _ = try await api.createTask("acts", url: origin.url("/gated/acts/1000000"))
                try await waitUntil { try await api.task("acts", 1).countOfBytesReceived > 0 }
                let browser = DashboardClient(api)
                let csrf = try await browser.signIn()
                let actions = "/ui/sessions/acts/tasks/1"

                // act and verify: each form acts, and sends back to the page it names (a dashboard page only)
                let suspended = try await browser.post(
                    "\(actions)/suspend",
                    form: ["csrf": csrf, "back": "/ui/sessions/acts?state=suspended"]
                )
                #expect(suspended.status == 303 && suspended.location == "/ui/sessions/acts?state=suspended")
                #expect(try await api.task("acts", 1).state == "suspended")
                let resumed = try await browser.post("\(actions)/resume", form: ["csrf": csrf, "back": "https://evil.example/"])
                #expect(resumed.location == "/ui/sessions/acts", "never back to another site")
                #expect(try await api.task("acts", 1).state == "running")
                let forged = try await browser.post("\(actions)/cancel", form: ["csrf": String(repeating: "0", count: csrf.count)])
                let afterForged = try await api.task("acts", 1).state
                #expect(forged.status == 403 && afterForged == "running")
                let cancelled = try await browser.post("\(actions)/cancel", form: ["csrf": csrf, "back": "//evil.example/ui/"])
                #expect(cancelled.location == "/ui/sessions/acts")
                let task = try await api.waitForCompletion("acts", 1)
                #expect(task.error?.code == "cancelled")

                // a refused action is a page with the API's detail and status
                let again = try await browser.post("\(actions)/resume", form: ["csrf": csrf])
                let direct = try await api.send(.POST, "/v1/sessions/acts/tasks/1/resume")
                #expect(again.status == direct.status && again.status == 409, "\(again.status)")
                #expect(again.problem != nil && again.problem == direct.problem?.detail)
                let missing = try await browser.post("/ui/sessions/acts/tasks/9/suspend", form: ["csrf": csrf])
                #expect(missing.status == 404)
                origin.open(gate: "acts")
            }
        }
    }

    /// The session page links to a page that says what deleting the session removes and asks to confirm; only its
    /// form, with the CSRF token, deletes it.
    @Test func aSessionIsDeletedAfterItsConfirmationPage() async throws {
        try await TestService.with { api in
            try await api.createSession("doomed")
            _ = try await api.createTask("doomed", url: "http://127.0.0.1:9/", extra: #", "start": false"#)
            let browser = DashboardClient(api)
            let csrf = try await browser.signIn()
            #expect(try await browser.get("/ui/sessions/doomed").text.contains(#"href="/ui/sessions/doomed/delete""#))

            let asked = try await browser.get("/ui/sessions/doomed/delete")
            #expect(asked.status == 200)
            #expect(asked.text.contains("Delete doomed?") && asked.text.contains("its tasks (1)"), "\(asked.text)")
            #expect(try await api.send(.GET, "/v1/sessions/doomed").status == 200, "asking deletes nothing")
            let forged = try await browser.post("/ui/sessions/doomed/delete", form: ["csrf": String(repeating: "0", count: csrf.count)])
            #expect(forged.status == 403)
            #expect(try await api.send(.GET, "/v1/sessions/doomed").status == 200)

            let deleted = try await browser.post("/ui/sessions/doomed/delete", form: ["csrf": csrf])
            #expect(deleted.status == 303 && deleted.location == "/ui/sessions")
            #expect(try await api.send(.GET, "/v1/sessions/doomed").status == 404)
            #expect(try await browser.get("/ui/sessions/doomed").status == 404)
        }
    }

    @Test func aDeadLetteredDeliveryIsReplayedOneAtATimeOrAllAtOnce() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with(deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                try await api.deadLetterTestEvents("hooked", to: receiver, count: 2)
                let browser = DashboardClient(api)
                let csrf = try await browser.signIn()

                // verify: the page shows the failed deliveries, their attempts and their replay forms
                let page = try await browser.get("/ui/sessions/hooked/deliveries?status=failed")
                #expect(page.status == 200)
                #expect(page.text.contains("The subscriber answered 500.") && page.text.contains("HTTP 500"))
                #expect(page.text.contains(#"action="/ui/sessions/hooked/deliveries/1/replay""#))
                #expect(page.text.contains(#"<a href="/ui/sessions/hooked/deliveries?status=failed" aria-current="page">failed</a>"#))

                // act: one, then the rest
                receiver.refuse(with: nil)
                let one = try await browser.post(
                    "/ui/sessions/hooked/deliveries/1/replay",
                    form: ["csrf": csrf, "back": "/ui/sessions/hooked/deliveries?status=failed"]
                )
                #expect(one.location == "/ui/sessions/hooked/deliveries?status=failed")
                try await waitUntil { try await api.deliveries("hooked", status: "delivered").count == 1 }
                #expect(try await api.deliveries("hooked", status: "failed").map(\.id) == [2])
                let rest = try await browser.post("/ui/sessions/hooked/deliveries/replay-failed", form: ["csrf": csrf])
                #expect(rest.location == "/ui/sessions/hooked/deliveries")
                try await api.waitUntilAllAcknowledged("hooked")
                #expect(try await api.deliveries("hooked", status: "delivered").count == 2)
                let missing = try await browser.post("/ui/sessions/hooked/deliveries/99/replay", form: ["csrf": csrf])
                #expect(missing.status == 404 && missing.problem?.isEmpty == false)
            }
        }
    }

    @Test func theDeliveriesPageShowsTheEndpointsHealthFilterAndRepliesAndEnablesIt() async throws {
        try await WebhookReceiver.with { receiver in
            try await TestService.with(deliveryPolicy: TestService.twoQuickDeliveryAttempts) { api in
                // setup: a subscriber that answers 503 with a hostile body, for two event types
                receiver.refuse(with: 503, body: "<script>alert(1)</script> down for maintenance")
                let webhook = #"{"url": "\#(receiver.url)", "events": ["webhook.test", "task.completed"]}"#
                try await api.createSession("ops", configuration: #"{"webhook": \#(webhook)}"#)
                _ = try await api.send(.POST, "/v1/sessions/ops/webhook/test")
                try await waitUntil { try await api.deliveries("ops", status: "failed").count == 1 }
                let browser = DashboardClient(api)
                let csrf = try await browser.signIn()

                // verify: the endpoint's health, the filter, and the reply as text
                let page = try await browser.get("/ui/sessions/ops/deliveries")
                #expect(page.text.contains(#"<span class="state failing">failing</span>, for webhook.test, task.completed."#))
                let sessionPage = try await browser.get("/ui/sessions/ops")
                #expect(sessionPage.text.contains(#"<span class="state failing">failing</span>, for webhook.test, task.completed."#))
                #expect(page.text.contains("&lt;script&gt;alert(1)&lt;/script&gt; down for maintenance"))
                #expect(page.text.contains("Last failure: The subscriber answered 503."))
                #expect(!page.text.contains("<script>alert(1)"))
                #expect(page.text.contains(#"action="/ui/sessions/ops/webhook/enable""#))

                // act: the subscriber is back, and the operator enables it
                receiver.refuse(with: nil)
                let enabled = try await browser.post("/ui/sessions/ops/webhook/enable", form: ["csrf": csrf])

                // verify
                #expect(enabled.location == "/ui/sessions/ops/deliveries")
                #expect(try await api.session("ops").webhookState == "healthy")
                #expect(!(try await browser.get("/ui/sessions/ops/deliveries")).text.contains("Enable now"))
            }
        }
    }

    @Test func aChallengeIsAnsweredOnTheTaskPage() async throws {
        try await OriginServer.with { origin in
            try await TestService.with { api in
                try await api.createSession("asked")
                _ = try await api.createTask("asked", url: origin.url("/basic/gina/2000"))
                _ = try await api.createTask("asked", url: origin.url("/bearer/hal/2000"))
                for task in [1, 2] {
                    _ = try await api.waitForEvent("asked") { $0.type == "task.authentication_challenge" && $0.taskIdentifier == task }
                }
                let browser = DashboardClient(api)
                let csrf = try await browser.signIn()

                // verify: each page asks for what its server asked for
                let basic = try await browser.get("/ui/sessions/asked/tasks/1")
                let bearer = try await browser.get("/ui/sessions/asked/tasks/2")
                #expect(basic.text.contains("Credentials asked for") && basic.text.contains(#"realm “files”"#))
                #expect(basic.text.contains(#"name="user""#) && !basic.text.contains(#"name="token""#))
                #expect(bearer.text.contains(#"name="token""#) && !bearer.text.contains(#"name="user""#))

                // act: a form without a user, then the credentials; default handling for the other
                let incomplete = try await browser.post(
                    "/ui/sessions/asked/tasks/1/challenge",
                    form: ["csrf": csrf, "disposition": "useCredential", "user": "", "password": "x"]
                )
                let answered = try await browser.post(
                    "/ui/sessions/asked/tasks/1/challenge",
                    form: [
                        "csrf": csrf, "disposition": "useCredential", "user": "gina", "password": OriginServer.password(of: "gina"),
                        "persistence": "forSession",
                    ]
                )
                let declined = try await browser.post(
                    "/ui/sessions/asked/tasks/2/challenge",
                    form: ["csrf": csrf, "disposition": "performDefaultHandling", "token": ""]
                )

                // verify
                #expect(incomplete.status == 400 && incomplete.problem?.hasPrefix("`credential` must hold either") == true)
                #expect(answered.status == 303 && answered.location == "/ui/sessions/asked/tasks/1", "\(answered.problem ?? "")")
                #expect(try await api.waitForCompletion("asked", 1).countOfBytesReceived == 2000)
                let failed = try await api.waitForCompletion("asked", 2)
                #expect(declined.status == 303 && failed.error?.code == "badServerResponse" && failed.error?.statusCode == 401)
                let late = try await browser.post(
                    "/ui/sessions/asked/tasks/2/challenge",
                    form: ["csrf": csrf, "disposition": "cancelAuthenticationChallenge"]
                )
                #expect(late.status == 409 && late.problem == "Task 2 has no authentication challenge waiting for an answer.")
                #expect(!(try await browser.get("/ui/sessions/asked/tasks/1").text.contains("Credentials asked for")))
            }
        }
    }

    @Test func anAdminIssuesAKeyShownOnceAndRevokesIt() async throws {
        let dataDirectory = DataDirectories.temporary()
        try await TestService.with(dataDirectory: dataDirectory) { api in
            let browser = DashboardClient(api)
            let csrf = try await browser.signIn()

            // act: issue a key for a new tenant
            let created = try await browser.post("/ui/keys", form: ["csrf": csrf, "name": "ci runner", "tenant": "builds"])
            let token = try #require(
                created.text.range(of: #"trd_[0-9a-f]{16}_[0-9a-f]{64}"#, options: .regularExpression).map { String(created.text[$0]) }
            )
            let id = String(token.split(separator: "_")[1])
            var issued = api
            issued.key = token

            // verify: shown once, works on the API for its own tenant, listed without its secret afterwards
            #expect(created.status == 201)
            #expect(try await issued.send(.PUT, "/v1/sessions/built", json: "{}").status == 201)
            let listed = try await browser.get("/ui/keys")
            #expect(listed.text.contains(id) && listed.text.contains("ci runner") && listed.text.contains("builds"))
            #expect(!listed.text.contains(token), "the key is shown once")

            // act and verify: revoked at once; a bad form shows the detail; a non-admin key is refused
            let revoked = try await browser.post("/ui/keys/\(id)/revoke", form: ["csrf": csrf])
            #expect(revoked.status == 303 && revoked.location == "/ui/keys")
            #expect(try await issued.send(.GET, "/v1/sessions").status == 401)
            #expect(try await browser.get("/ui/keys").text.contains("revoked"))
            let nameless = try await browser.post("/ui/keys", form: ["csrf": csrf, "tenant": "builds"])
            #expect(nameless.status == 400 && nameless.problem?.contains("`name` is required") == true, "\(nameless.problem ?? "")")
            let unknown = try await browser.post("/ui/keys/ffffffffffffffff/revoke", form: ["csrf": csrf])
            #expect(unknown.status == 404)

            let plain = try await KeyManagement.create(dataDirectory: dataDirectory, name: "plain", tenant: "default", admin: false)
            let member = DashboardClient(api)
            let memberCSRF = try await member.signIn(plain)
            let refused = try await member.get("/ui/keys")
            #expect(refused.status == 403 && refused.problem == "Only an admin key can manage API keys.")
            #expect(try await member.post("/ui/keys", form: ["csrf": memberCSRF, "name": "x", "tenant": "x"]).status == 403)
            #expect(!(try await member.get("/ui/sessions").text.contains(#"href="/ui/keys""#)), "no link to it either")
        }
    }
}
