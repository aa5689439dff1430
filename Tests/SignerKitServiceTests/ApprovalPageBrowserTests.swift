import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitCurl
import SignerKitHTTP
import SignerKitHTTPServer
import SignerKitService
import SignerKitTestSupport
import Testing

/// The approval page as approvers use it: a real HTTP server on 127.0.0.1 in front of the service, headless
/// Chromium in front of that. `payouts` asks for a Permit2 `PermitSingle` above the rule's threshold and
/// long-polls; alice logs in, sees the amount and the far-deadline warning and approves; bob approves, which
/// signs; the long-poll returns the signature; carol's tab, and alice's after its refresh, show the list
/// empty; a second request appears in carol's tab and she rejects it with a reason. Also checked: each
/// approval the page sent names the digest it showed; the page loads and calls nothing but its own origin,
/// breaks no rule of its Content-Security-Policy (which the browser enforces) and keeps the token out of
/// storage, cookies and the document (``ApprovalPageHeaderTests`` checks its headers).
///
/// With `SIGNERKIT_SCREENSHOTS=DIR` the test saves the screenshots of docs/APPROVALS.md there
/// (`approvals-login.png`, `approvals-held-permit2.png`, `approvals-signed.png`).
///
/// Locally the suite is skipped when `/usr/bin/chromium` is missing; with `CI=true` a missing browser fails.
@Suite(
    "Approval page in Chromium", .serialized,
    .enabled(
        if: HeadlessChromium.isAvailable || HeadlessChromium.isCI, "chromium not installed (apt-get install chromium)"))
struct ApprovalPageBrowserTests {
    /// The token the rule watches, known to the service's token registry as `TUSD` (6 decimals).
    static let token = address("0x7e57000000000000000000000000000000c0ffee")
    /// The Permit2 spender.
    static let spender = address("0x5e771e0000000000000000000000000000005e77")
    /// Held above 1,000 tokens of 6 decimals; the permits allow 2,500 and 3,000.
    static let threshold = UInt256(1_000_000_000)
    /// 2100-01-01T00:00:00Z: the permit's expiration and signature deadline, decades ahead (`far-deadline`).
    static let deadline: UInt64 = 4_102_444_800

    static func address(_ text: String) -> Address {
        guard let value = try? Address(text) else { preconditionFailure("bad test address \(text)") }
        return value
    }

    /// `PermitSingle` typed data of `amount` (base units) of ``token`` for ``spender`` on the service's chain.
    static func permitSingle(_ amount: UInt256) -> String {
        let field = { (name: String, type: String) in #"{"name":"\#(name)","type":"\#(type)"}"# }
        return #"""
            {"types":{"EIP712Domain":[\#(field("name", "string")),\#(field("chainId", "uint256")),\#(field("verifyingContract", "address"))],
             "PermitDetails":[\#(field("token", "address")),\#(field("amount", "uint160")),\#(field("expiration", "uint48")),\#(field("nonce", "uint48"))],
             "PermitSingle":[\#(field("details", "PermitDetails")),\#(field("spender", "address")),\#(field("sigDeadline", "uint256"))]},
             "primaryType":"PermitSingle",
             "domain":{"name":"Permit2","chainId":2021,"verifyingContract":"0x000000000022D473030F116dDEE9F6B43aC78BA3"},
             "message":{"details":{"token":"\#(token.checksummed)","amount":"\#(amount.decimalString)","expiration":\#(deadline),"nonce":0},
                        "spender":"\#(spender.checksummed)","sigDeadline":\#(deadline)}}
            """#
    }

    /// Records the page's Content-Security-Policy violations in an attribute of its root element (a DOM
    /// change, so a wait sees it at once); runs before the page's own script (DevTools scripts are exempt).
    static let violationRecorder = """
        document.addEventListener('securitypolicyviolation', (e) => {
          const root = document.documentElement;
          const seen = JSON.parse(root.dataset.cspViolations || '[]');
          seen.push(e.violatedDirective + ' ' + e.blockedURI);
          root.dataset.cspViolations = JSON.stringify(seen);
        });
        """

    /// The browser, the page's URL and the screenshot folder of this run.
    struct Browser {
        let chromium: HeadlessChromium
        let origin: String
        let screenshots: String? = ProcessInfo.processInfo.environment["SIGNERKIT_SCREENSHOTS"].flatMap {
            $0.isEmpty ? nil : $0
        }

        /// A new 1000×700 tab on the page, CSP violations recorded; its session.
        func open() async throws -> String {
            let target = try await chromium.send("Target.createTarget", JSONObject(["url": .string("about:blank")]))
            let targetId = try #require(target["targetId"]?.stringValue)
            let attached = try await chromium.send(
                "Target.attachToTarget", JSONObject(["targetId": .string(targetId), "flatten": .bool(true)]))
            let tab = try #require(attached["sessionId"]?.stringValue)
            try await resize(tab, height: 700)
            _ = try await chromium.send("Page.enable", session: tab)
            _ = try await chromium.send(
                "Page.addScriptToEvaluateOnNewDocument",
                JSONObject(["source": .string(ApprovalPageBrowserTests.violationRecorder)]), session: tab)
            _ = try await chromium.send(
                "Page.navigate", JSONObject(["url": .string(origin + "/approvals")]), session: tab)
            _ = try await chromium.waitFor("!document.querySelector('#login button').disabled", session: tab)
            return tab
        }

        func resize(_ tab: String, height: Int) async throws {
            _ = try await chromium.send(
                "Emulation.setDeviceMetricsOverride",
                JSONObject([
                    "width": .number("1000"), "height": .number(String(height)), "deviceScaleFactor": .number("1"),
                    "mobile": .bool(false),
                ]), session: tab)
        }

        /// Logs in as `name` (pastes its token, clicks Log in) and waits for the list.
        func login(_ tab: String, as name: String) async throws {
            _ = try await chromium.evaluate(
                """
                document.getElementById('token').value = '\(ApprovalsService.token(name))';
                document.querySelector('#login button').click(); 'submitted'
                """, session: tab)
            let outcome = try await chromium.waitFor(
                "!document.getElementById('requests').hidden ? 'listed' : document.getElementById('error').textContent",
                session: tab)
            #expect(outcome == "listed", "\(name): \(outcome)")
        }

        /// The visible text of request `id` once the tab lists it and `condition` (JavaScript on `text`) holds.
        func request(_ id: String, in tab: String, where condition: String = "true") async throws -> String {
            try await chromium.waitFor(
                """
                (() => { const item = document.querySelector('li.request[data-request-id="\(id)"]');
                  const text = item ? item.innerText : ''; return text && (\(condition)) ? text : ''; })()
                """, session: tab)
        }

        /// Clicks `button` (a class) of request `id` and returns the notice or error it leads to.
        func click(_ button: String, of id: String, in tab: String) async throws -> String {
            _ = try await chromium.evaluate(
                "document.querySelector('li.request[data-request-id=\"\(id)\"] button.\(button)').click(); 'clicked'",
                session: tab)
            return try await chromium.waitFor(
                "document.getElementById('notice').textContent || document.getElementById('error').textContent",
                session: tab)
        }

        /// Waits until the tab lists no request and says so.
        func waitForEmptyList(_ tab: String) async throws {
            _ = try await chromium.waitFor(
                "document.querySelectorAll('li.request').length === 0 && !document.getElementById('empty').hidden",
                session: tab)
        }

        /// What the page loaded or called, its CSP violations, and whether the token left a trace.
        func hygiene(_ tab: String, token: String) async throws -> JSONValue {
            try await chromium.evaluate(
                """
                ({ elsewhere: performance.getEntriesByType('resource').map((e) => e.name)
                     .filter((url) => !url.startsWith(location.origin + '/')),
                   resources: performance.getEntriesByType('resource').length,
                   violations: JSON.parse(document.documentElement.dataset.cspViolations || '[]'),
                   stored: localStorage.length + sessionStorage.length + document.cookie.length,
                   inDocument: document.documentElement.outerHTML.includes('\(token)')
                     || document.getElementById('token').value !== '' })
                """, session: tab)
        }

        /// Saves the tab, cut or grown to its content's height, as `name`.png when screenshots are asked for.
        func screenshot(_ tab: String, _ name: String) async throws {
            guard let screenshots else { return }
            let height = try await chromium.evaluate(
                "Math.ceil(document.querySelector('main').getBoundingClientRect().bottom + 24)", session: tab)
            guard case .number(let text) = height, let pixels = Int(text) else {
                throw HeadlessChromium.Failure("no page height: \(height.serialized)")
            }
            try await resize(tab, height: max(pixels, 200))
            _ = try await chromium.send(
                "Emulation.setScrollbarsHidden", JSONObject(["hidden": .bool(true)]), session: tab)
            let shot = try await chromium.send(
                "Page.captureScreenshot", JSONObject(["format": .string("png")]), session: tab)
            guard let base64 = shot["data"]?.stringValue, let png = Data(base64Encoded: base64) else {
                throw HeadlessChromium.Failure("no screenshot data")
            }
            try png.write(to: URL(fileURLWithPath: screenshots).appendingPathComponent("\(name).png"))
            try await resize(tab, height: 700)
        }
    }

    /// POSTs one JSON-RPC call as `name` to the server over HTTP; the answer object.
    func call(_ origin: String, _ name: String, _ method: String, _ params: String) async throws -> JSONValue {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#
        let response = try await CurlHTTPTransport.shared.send(
            HTTPRequest(
                method: "POST", url: try #require(URL(string: origin + "/")),
                headers: [HTTPHeader("Authorization", "Bearer \(ApprovalsService.token(name))")],
                body: Array(body.utf8), timeout: .seconds(60)))
        return try JSONValue(parsing: response.body)
    }

    @Test("alice sees the Permit2 amount and warning and approves, bob approves: signed; carol rejects another")
    func twoApproversInTheBrowser() async throws {
        guard HeadlessChromium.isAvailable else {
            Issue.record("CI=true but \(HeadlessChromium.executablePath) is missing: apt-get install -y chromium")
            return
        }
        let rule = ApprovalRule(
            "large-payout",
            above: [.init(chain: ApprovalsService.chain, asset: .token(Self.token), above: Self.threshold)],
            group: "treasury", required: 2)
        let tokens = TokenRegistry(
            tokens: TokenRegistry.builtIn + [
                KnownToken(chainId: 2021, address: Self.token, symbol: "TUSD", decimals: 6)
            ])
        let service = try await ApprovalsService.start(
            policies: [rule], previewer: SigningPreviewer(tokens: tokens))
        let received = Arrivals<HTTPServerRequest>()
        let server = try service.serve(observe: { received.append($0) })
        defer { server.stopWithoutWaiting() }
        let origin = server.baseURLString
        let chromium = try HeadlessChromium()
        let browser = Browser(chromium: chromium, origin: origin)
        do {
            try await run(browser, origin: origin, received: received)
        } catch {
            await chromium.close()
            throw HeadlessChromium.Failure("\(error)\n\(chromium.log)")
        }
        await chromium.close()
    }

    /// `payouts` asks for a Permit2 signature of `amount`: held; its request id and expiry.
    func hold(_ amount: UInt256, origin: String) async throws -> (id: String, expiresAt: String) {
        let answer = try await call(
            origin, "payouts", "eth_signTypedData_v4",
            #"["\#(TestKeys.alphaAddress)", \#(Self.permitSingle(amount))]"#)
        #expect(answer.errorCode == -32010, "\(answer.serialized)")
        let data = answer["error"]?["data"]
        return (try #require(data?["requestId"]?.stringValue), try #require(data?["expiresAt"]?.stringValue))
    }

    func run(_ browser: Browser, origin: String, received: Arrivals<HTTPServerRequest>) async throws {
        let (id, expiresAt) = try await hold(UInt256(2_500_000_000), origin: origin)
        let listed = try await call(origin, "carol", "signerkit_heldRequests", "[]")
        let digest = try #require(listed["result"]?.arrayValue?.first?["digest"]?.stringValue, "\(listed.serialized)")
        // The caller's long-poll: each call answers by the request timeout; ask again while it is held.
        let poll = Task {
            var status = JSONValue.null
            for _ in 0..<10 {
                status = try await call(
                    origin, "payouts", "signerkit_requestStatus", #"["\#(id)", {"waitMs": 120000}]"#)
                if status["result"]?["status"]?.stringValue != "held" { break }
            }
            return status
        }

        let alice = try await browser.open()
        try await browser.screenshot(alice, "approvals-login")
        try await browser.login(alice, as: "alice")
        let seen = try await browser.request(id, in: alice)
        let expected = [
            "Held by rule large-payout", "payouts (eth_signTypedData_v4)",
            expiresAt.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: " UTC"),
            "0 so far; needs 2 of treasury", "permit2-single", TestKeys.alphaAddress,
            "2500.000000 TUSD", Self.spender.checksummed,
            "2100-01-01 00:00:00 UTC", "Far deadline: valid for more than a year", digest,
        ]
        for text in expected { #expect(seen.contains(text), "alice's page lacks \(text):\n\(seen)") }
        let warning = try await browser.chromium.evaluate(
            "document.querySelector('li.request ul.warnings').innerText", session: alice)
        #expect(warning.stringValue?.contains("Far deadline") == true, "\(warning.serialized)")
        try await browser.screenshot(alice, "approvals-held-permit2")
        let first = try await browser.click("approve", of: id, in: alice)
        #expect(first == "Approved. Request \(id) has 1 approval(s) (alice) and waits for more.", "\(first)")

        let bob = try await browser.open()
        try await browser.login(bob, as: "bob")
        _ = try await browser.request(id, in: bob, where: "text.includes('1 so far (alice)')")
        let second = try await browser.click("approve", of: id, in: bob)
        #expect(second == "Request \(id) is signed: approved by alice, bob.", "\(second)")
        try await browser.waitForEmptyList(bob)
        try await browser.screenshot(bob, "approvals-signed")

        let polled = try await poll.value
        #expect(polled["result"]?["status"]?.stringValue == "signed", "\(polled.serialized)")
        let signature = try #require(polled["result"]?["result"]?.stringValue)
        #expect(signature.count == 132 && signature.hasPrefix("0x"), "\(signature)")
        let signed = try TypedData(jsonText: Self.permitSingle(UInt256(2_500_000_000))).digest()
        let recovered = try ECDSA.recoverAddress(prehash: signed, signature: try RecoverableSignature(hex: signature))
        #expect(recovered.checksummed == TestKeys.alphaAddress)

        let carol = try await browser.open()
        try await browser.login(carol, as: "carol")
        try await browser.waitForEmptyList(carol)
        // Alice's tab drops the request at its next refresh.
        try await browser.waitForEmptyList(alice)

        // Another request appears in carol's tab at its next refresh; she rejects it with a reason.
        let other = try await hold(UInt256(3_000_000_000), origin: origin).id
        _ = try await browser.request(other, in: carol, where: "text.includes('3000.000000 TUSD')")
        let reason = "unknown spender <b>\"x\"</b>"
        _ = try await browser.chromium.evaluate(
            "document.querySelector('li.request[data-request-id=\"\(other)\"] button.reject').click(); 'opened'",
            session: carol)
        _ = try await browser.chromium.waitFor(
            """
            (() => { const input = document.querySelector('li.request[data-request-id="\(other)"] input.reason');
              if (!input || input.hidden) return '';
              input.value = \(JSONValue.string(reason).serialized); return 'typed'; })()
            """, session: carol)
        let rejected = try await browser.click("confirm-reject", of: other, in: carol)
        #expect(rejected == "Request \(other) is rejected.", "\(rejected)")
        try await browser.waitForEmptyList(carol)
        let status = try await call(origin, "payouts", "signerkit_requestStatus", #"["\#(other)"]"#)
        #expect(status["result"]?["status"]?.stringValue == "rejected", "\(status.serialized)")
        #expect(status["result"]?["rejection"]?["by"]?.stringValue == "carol")
        #expect(status["result"]?["rejection"]?["reason"]?.stringValue == reason, "\(status.serialized)")

        for (tab, name) in [(alice, "alice"), (bob, "bob"), (carol, "carol")] {
            let hygiene = try await browser.hygiene(tab, token: ApprovalsService.token(name))
            #expect(hygiene["elsewhere"] == .array([]), "\(name): \(hygiene.serialized)")
            #expect(hygiene["violations"] == .array([]), "\(name): \(hygiene.serialized)")
            #expect(hygiene["stored"] == .number("0") && hygiene["inDocument"] == .bool(false), "\(hygiene.serialized)")
            // The stylesheet, the script and the JSON-RPC calls, all from the origin.
            guard case .number(let count)? = hygiene["resources"], let resources = Int(count) else {
                throw HeadlessChromium.Failure("\(name): \(hygiene.serialized)")
            }
            #expect(resources >= 3, "\(name): \(hygiene.serialized)")
        }
        // The browser enforces the policy: an injected inline script does not run, a call elsewhere is blocked.
        _ = try await browser.chromium.evaluate(
            "const s = document.createElement('script'); s.textContent = 'window.injected = 1'; "
                + "document.body.append(s); fetch('http://127.0.0.2:9/').catch(() => {}); 'tried'", session: carol)
        let blocked = try await browser.chromium.waitFor(
            "(v => v.includes('script-src') && v.includes('connect-src') ? v : '')"
                + "(document.documentElement.dataset.cspViolations || '')", session: carol)
        #expect(blocked.contains("http://127.0.0.2:9/"), "\(blocked)")
        #expect(try await browser.chromium.evaluate("window.injected === undefined", session: carol) == .bool(true))

        // What the browser asked the server: the page's three files and JSON-RPC (and, on its own, the site's
        // icon, answered 404); each approval bound to the digest the page showed, the rejection with its reason.
        let fromBrowser = received.all.filter { $0.header("user-agent")?.contains("Chrome") == true }
        let routes = Set(fromBrowser.map { "\($0.method) \($0.path)" }).subtracting(["GET /favicon.ico"])
        #expect(routes == ["GET /approvals", "GET /approvals/app.js", "GET /approvals/app.css", "POST /"], "\(routes)")
        let calls = fromBrowser.compactMap { try? JSONValue(parsing: $0.body) }
        let approvals = calls.filter { $0["method"]?.stringValue == "signerkit_approve" }.map { $0["params"] }
        let bound = JSONValue.array([.string(id), .object(JSONObject(["digest": .string(digest)]))])
        #expect(approvals == [bound, bound], "\(approvals)")
        let rejections = calls.filter { $0["method"]?.stringValue == "signerkit_reject" }.map { $0["params"] }
        #expect(rejections == [.array([.string(other), .string(reason)])], "\(rejections)")
    }
}

/// The approval page's assets over the wire (no browser needed): each with its Content-Type, the
/// Content-Security-Policy and the other safety headers, no cookie, `405` for any method but `GET`, and no
/// inline script or style in the HTML for the policy to allow.
@Suite("Approval page headers")
struct ApprovalPageHeaderTests {
    /// GETs (or `method`s) `path` of the server over HTTP.
    static func fetch(_ origin: String, _ path: String, method: String = "GET") async throws -> HTTPResponse {
        try await CurlHTTPTransport.shared.send(
            HTTPRequest(method: method, url: try #require(URL(string: origin + path)), timeout: .seconds(30)))
    }

    @Test("the page's three assets carry the CSP and safety headers over the wire; other methods get 405")
    func headers() async throws {
        let service = try await ApprovalsService.start()
        let server = try service.serve()
        defer { server.stopWithoutWaiting() }
        let origin = server.baseURLString
        let assets = [
            ("/approvals", "text/html; charset=utf-8"), ("/approvals/app.js", "text/javascript; charset=utf-8"),
            ("/approvals/app.css", "text/css; charset=utf-8"),
        ]
        for (path, type) in assets {
            let response = try await Self.fetch(origin, path)
            #expect(response.status == 200, "\(path)")
            #expect(response.header("content-type") == type, "\(path)")
            #expect(
                response.header("content-security-policy")
                    == "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                    + "form-action 'none'; frame-ancestors 'none'; base-uri 'none'", "\(path)")
            #expect(response.header("x-content-type-options") == "nosniff", "\(path)")
            #expect(response.header("referrer-policy") == "no-referrer", "\(path)")
            #expect(response.header("cache-control") == "no-store", "\(path)")
            #expect(response.header("set-cookie") == nil, "\(path)")
            let post = try await Self.fetch(origin, path, method: "POST")
            #expect(post.status == 405 && post.header("allow") == "GET", "\(path)")
        }
        // No inline script or style for the policy to allow.
        let html = String(decoding: try await Self.fetch(origin, "/approvals").body, as: UTF8.self)
        #expect(!html.contains("<style") && !html.contains("style=") && !html.contains("<script>"))
        // Text from the service is never parsed as markup or code.
        let script = String(decoding: try await Self.fetch(origin, "/approvals/app.js").body, as: UTF8.self)
        for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "Function("] {
            #expect(!script.contains(sink), "app.js uses \(sink)")
        }
        #expect(try await Self.fetch(origin, "/approvals/other.js").status == 404)
    }
}
