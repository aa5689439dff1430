import EIP712
import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTesting
import RedirectSignerTransports
import SignerKit

/// `signerkit waypoint …`: the Ronin Waypoint hosted wallet (a redirect-based signer).
///
/// - `url KIND …` prints a request URL; `parse URL` reads a callback into JSON.
/// - `authorize`, `sign-message`, `sign-typed-data`, `send` run a round trip: the request URL goes to
///   the browser (`open: <url>` on stderr, and `xdg-open` when a display is set), the callback comes
///   back to a loopback listener (or a deep-link socket, or a pasted line with `--manual`), and the
///   verified result is printed.
/// - `deliver URL` hands a custom-scheme callback to the signer waiting for it.
/// - `simulate-wallet` runs the test stand-in for the hosted wallet.
enum WaypointCommands {
    /// The `waypoint` group.
    static let command = Command.group(
        "waypoint", summary: "Ronin Waypoint hosted wallet: request URLs, callbacks, verified round trips.",
        details: """
            Requests go to {origin}/client/{clientId}/authorize, {origin}/wallet/sign and {origin}/wallet/send;
            the wallet redirects the browser back with state, method, type and data (or code and message).
            Every callback's state must match a pending request once, and every signature must recover to
            the expected address over the digest SignerKit computes itself.
            """,
        subcommands: [url, parse, authorize, signMessage, signTypedData, send, deliver, simulateWallet])

    // MARK: - Flags

    static let clientID = FlagSpec.option("--client-id", value: "ID", help: "the dapp's Waypoint client id (required)")
    static let redirect = FlagSpec.option("--redirect", value: "URI", help: "where the wallet sends the browser back")
    static let chainID = FlagSpec.option(
        "--chain-id", value: "N", help: "EIP-155 chain id, decimal (default 2020, Ronin mainnet; 2021 is Saigon)")
    static let state = FlagSpec.option(
        "--state", value: "S", help: "the request's state (default: a fresh random UUID)")
    static let origin = FlagSpec.option(
        "--origin", value: "URL", help: "the hosted wallet's origin (default \(Waypoint.defaultOrigin))")
    static let scope = FlagSpec.option(
        "--scope", value: "S", help: "authorize: space-separated scopes (default \"openid wallet\")")
    static let message = FlagSpec.option("--message", value: "TEXT", help: "sign-message: the text to sign")
    static let typedData = FlagSpec.option(
        "--typed-data", value: "FILE", help: "sign-typed-data: the typed-data JSON file (- for stdin)")
    static let to = FlagSpec.option("--to", value: "A", help: "send/call: the recipient or contract address")
    static let value = FlagSpec.option("--value", value: "WEI", help: "send/call: the native value in wei (decimal)")
    static let data = FlagSpec.option("--data", value: "0x…", help: "send/call: the calldata as 0x-hex")
    static let expectAddress = FlagSpec.option(
        "--expect-address", value: "A",
        help: "the account that must sign (required for sign-message and sign-typed-data round trips)")
    static let timeout = FlagSpec.option(
        "--timeout", value: "SECONDS", help: "how long to wait for the callback (default 300)")
    static let manual = FlagSpec.flag(
        "--manual", help: "print the URL and read the callback URL pasted on stdin (needs --redirect)")
    static let socket = FlagSpec.option(
        "--socket", value: "PATH", help: "the deep-link socket (default: per-user runtime directory)")
    static let jwks = FlagSpec.option(
        "--jwks", value: "FILE|URL",
        help: "authorize: verify the ID token (ES256) against this JWKS; refused tokens exit 65 naming the check")
    static let issuer = FlagSpec.option(
        "--issuer", value: "ISS", help: "authorize: the expected iss of the ID token (default: --origin); needs --jwks")
    static let leeway = FlagSpec.option(
        "--leeway", value: "SECONDS", help: "authorize: clock skew allowed on exp/nbf/iat (default 60); needs --jwks")
    static let pkce = FlagSpec.flag(
        "--pkce", help: "authorize: send an S256 code_challenge and exchange the returned authorization_code")
    static let txType = FlagSpec.option(
        "--type", value: "0x…", help: "send/call: the transaction type to forward (e.g. 0x2; Ronin's sponsored 0x64)")
    static let gas = FlagSpec.option("--gas", value: "N", help: "send/call: the gas limit to forward")
    static let nonce = FlagSpec.option("--nonce", value: "N", help: "send/call: the nonce to forward")
    static let gasPrice = FlagSpec.option(
        "--gas-price", value: "WEI", help: "send/call: the legacy gas price to forward")
    static let maxFee = FlagSpec.option(
        "--max-fee-per-gas", value: "WEI", help: "send/call: the EIP-1559 fee cap to forward")
    static let maxPriorityFee = FlagSpec.option(
        "--max-priority-fee-per-gas", value: "WEI", help: "send/call: the EIP-1559 priority fee to forward")
    /// The `eth_sendTransaction` fields forwarded by send/call.
    static let transactionFlags = [txType, gas, nonce, gasPrice, maxFee, maxPriorityFee]
    /// The sign-in flags of the authorize round trip.
    static let signInFlags = [jwks, issuer, leeway, pkce]

    /// The request flags shared by `url` and the round trips.
    static let requestFlags =
        [
            clientID, redirect, chainID, state, origin, scope, message, typedData, to, value, data, expectAddress,
        ] + transactionFlags
    /// Flags of the round-trip commands.
    static let roundTripFlags = requestFlags + [timeout, manual, socket]

    // MARK: - Commands

    /// `waypoint url KIND …`.
    static let url = Command.leaf(
        "url", summary: "Print a hosted-wallet request URL.",
        details: """
            KIND is authorize, sign-message, sign-typed-data, send or call. Every URL carries clientId, redirect,
            chainId and state; authorize adds scope; sign-message adds message; sign-typed-data adds typedData
            (compact JSON); send adds to and value (and data when given); call adds to and data (and value when
            given); expectAddress is added when given. Values are percent-encoded (+ as %2B).
            """,
        synopsis: "authorize|sign-message|sign-typed-data|send|call --client-id ID --redirect URI [options]",
        flags: requestFlags,
        positionals: [.positional("KIND", help: "authorize, sign-message, sign-typed-data, send or call")],
        run: runURL)

    /// `waypoint parse URL`.
    static let parse = Command.leaf(
        "parse", summary: "Parse a callback URL; print it as one JSON object.",
        details: """
            Keys: type ("success" or "fail"), method, state, version, data, address, secondaryAddress, code
            (a number), name, message (decoded text); absent keys are omitted. Exit status 0 for a success
            callback, 1 for a well-formed failure callback, 65 for a malformed one.
            """,
        positionals: [.positional("CALLBACK-URL", help: "the URL the wallet redirected to")],
        run: runParse)

    /// `waypoint authorize …`.
    static let authorize = roundTrip(
        "authorize", summary: "Sign in with the hosted wallet; print {address, secondaryAddress, idToken} as JSON.",
        kind: .authorize, extraFlags: signInFlags,
        extraDetails: """
            With --jwks the ID token must verify (ES256 only, kid from the JWKS, fetched again once on an unknown
            kid, iss = --issuer, aud = --client-id, exp/nbf/iat within --leeway) and the output adds "identity"
            {sub, iss, aud, exp, iat, claims}; a refused token exits 65 naming the failed check (alg, kid,
            signature, iss, aud, exp, nbf, iat, claims, format, jwks). A --scope without "wallet" signs in
            identity-only: no address is required or printed. --pkce sends code_challenge (S256) and exchanges
            the returned authorization_code at {origin}/oauth2/token with the verifier.
            """)
    /// `waypoint sign-message …`.
    static let signMessage = roundTrip(
        "sign-message", summary: "Have the hosted wallet sign a text message; print the verified signature.",
        kind: .signMessage)
    /// `waypoint sign-typed-data …`.
    static let signTypedData = roundTrip(
        "sign-typed-data", summary: "Have the hosted wallet sign typed data; print the verified signature.",
        kind: .signTypedData)
    /// `waypoint send …`.
    static let send = roundTrip(
        "send", summary: "Have the hosted wallet send a transfer or contract call; print the transaction hash.",
        kind: .send)

    /// `waypoint deliver URL`.
    static let deliver = Command.leaf(
        "deliver", summary: "Forward a custom-scheme callback URL to the signer waiting for it.",
        details: """
            Register this as the handler of your redirect's scheme (e.g. x-scheme-handler/mydapp). The URL goes
            over a Unix socket in a private per-user directory; the signer's answer is printed. Exit status 0
            when the signer accepted the callback, 1 when it refused it or none is waiting.
            """,
        flags: [socket],
        positionals: [.positional("URL", help: "the callback URL, e.g. mydapp://callback?state=…")],
        run: runDeliver)

    /// `waypoint simulate-wallet …`.
    static let simulateWallet = Command.leaf(
        "simulate-wallet", summary: "Run the hosted-wallet simulator on 127.0.0.1 (tests and demos).",
        details: """
            Serves /client/{clientId}/authorize, /wallet/sign and /wallet/send with an approval page (Approve /
            Reject buttons), signs with the key, and redirects (302) to the request's redirect. Prints
            "listening: http://127.0.0.1:PORT" (standard error: "listening http://127.0.0.1:PORT") and runs until
            stopped (or --exit-after).
            """,
        synopsis: "--key-file FILE [--port N] [options]",
        flags: SigningKeyOptions.flags + [
            .option("--port", value: "N", help: "port on 127.0.0.1 (default: ephemeral)"),
            .option("--client-id", value: "ID", help: "refuse requests for other client ids"),
            .option("--auto", value: "approve|reject", help: "answer at once instead of showing the approval page"),
            .option("--fail-code", value: "N", help: "Approve answers with this error code instead of a result"),
            .option("--reported-address", value: "A", help: "the address to claim (default: the key's)"),
            .option("--secondary-address", value: "A", help: "an external account to report at authorize"),
            .option("--exit-after", value: "SECONDS", help: "stop after this long"),
        ],
        run: runSimulateWallet)

    // MARK: - url

    /// What a request asks for.
    enum Kind: String, CaseIterable {
        case authorize
        case signMessage = "sign-message"
        case signTypedData = "sign-typed-data"
        case send
        case call

        /// The request flags that apply to this kind (besides the common ones).
        var ownFlags: Set<String> {
            switch self {
            case .authorize: ["--scope"]
            case .signMessage: ["--message", "--expect-address"]
            case .signTypedData: ["--typed-data", "--expect-address"]
            case .send, .call:
                Set(["--to", "--value", "--data", "--expect-address"] + WaypointCommands.transactionFlags.map(\.name))
            }
        }
    }

    static let commonFlags: Set<String> = ["--client-id", "--redirect", "--chain-id", "--state", "--origin"]

    /// A request read from the flags.
    struct Parsed {
        let request: WaypointRequest
        /// For typed data: the document, so the round trip verifies against SignerKit's digest.
        let typedData: TypedData?
    }

    static func runURL(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        guard let kindText = options.positional(0), let kind = Kind(rawValue: kindText) else {
            throw context.usageError(
                "unknown KIND \(TextSafety.displayArgument(options.positional(0) ?? "")): one of "
                    + Kind.allCases.map(\.rawValue).joined(separator: ", "))
        }
        let redirectURI = try options.required("--redirect", "URI (where the wallet sends the browser back)")
        let parsed = try request(kind, redirect: redirectURI, context: context)
        let stateValue = options.value("--state") ?? WaypointStateStore.randomState()
        guard !stateValue.isEmpty else { throw context.usageError("--state must not be empty") }
        context.printLine(parsed.request.url(state: stateValue))
        return .success
    }

    /// Builds the request for `kind` from the flags, refusing flags that do not apply.
    static func request(_ kind: Kind, redirect: String, context: CommandContext) throws(CommandFailure) -> Parsed {
        let options = context.options
        for flag in requestFlags.map(\.name)
        where options.has(flag) && !commonFlags.contains(flag) && !kind.ownFlags.contains(flag) {
            throw context.usageError("\(flag) does not apply to \(kind.rawValue)")
        }
        let clientID = try options.required("--client-id", "ID (the dapp's Waypoint client id)")
        guard !clientID.isEmpty else { throw context.usageError("--client-id must not be empty") }
        guard Waypoint.isValidRedirectURI(redirect) else {
            throw .invalidInput(
                "--redirect: not a URI with a scheme (e.g. http://127.0.0.1:5000/callback or mydapp://callback)")
        }
        let originValue = try origin(options)
        let chain = try decimal(options.value("--chain-id") ?? String(Waypoint.roninMainnet), flag: "--chain-id")
        guard !chain.isZero else { throw .invalidInput("--chain-id: must not be 0") }
        let expected = try options.value("--expect-address").map { (text) throws(CommandFailure) in
            try address(text, flag: "--expect-address")
        }
        switch kind {
        case .authorize:
            var scopes = Waypoint.defaultScope
            if let text = options.value("--scope") { scopes = text.split(separator: " ").map(String.init) }
            return Parsed(
                request: .authorize(
                    origin: originValue, clientId: clientID, redirect: redirect, chainId: chain, scope: scopes),
                typedData: nil)
        case .signMessage:
            let text = try options.required("--message", "TEXT (the message to sign)")
            return Parsed(
                request: .personalSign(
                    origin: originValue, clientId: clientID, redirect: redirect, chainId: chain, message: text,
                    expectAddress: expected),
                typedData: nil)
        case .signTypedData:
            let path = try options.required("--typed-data", "FILE (the typed-data JSON)")
            let source = InputSource(positional: path)
            let text = try source.readText(io: context.io)
            let json: JSONValue
            let document: TypedData
            do {
                json = try JSONValue(parsing: text)
                document = try TypedData(json: json)
                if let domainChain = try document.domainChainId(), domainChain != chain {
                    throw CommandFailure.invalidInput(
                        "\(source.label): domain.chainId \(domainChain.decimalString) is not --chain-id \(chain.decimalString)"
                    )
                }
                _ = try document.digest()
            } catch let failure as CommandFailure {
                throw failure
            } catch {
                throw .invalidInput("\(source.label): \(error)")
            }
            return Parsed(
                request: .signTypedData(
                    origin: originValue, clientId: clientID, redirect: redirect, chainId: chain,
                    typedData: json.stringValue.flatMap { try? JSONValue(parsing: $0) } ?? json, expectAddress: expected
                ),
                typedData: document)
        case .send, .call:
            let recipient = try address(try options.required("--to", "A (the recipient)"), flag: "--to")
            let amount = try options.value("--value").map { (text) throws(CommandFailure) in
                try decimal(text, flag: "--value")
            }
            let calldata = try options.value("--data").map { (text) throws(CommandFailure) -> [UInt8] in
                do { return try Hex.decode(text) } catch { throw .invalidInput("--data: \(error)") }
            }
            if kind == .call, calldata == nil { throw context.usageError("missing --data 0x… (the calldata)") }
            if kind == .send, amount == nil, calldata == nil { throw context.usageError("missing --value WEI") }
            var request: WaypointRequest
            if let calldata {
                request = .contractCall(
                    origin: originValue, clientId: clientID, redirect: redirect, chainId: chain, to: recipient,
                    data: calldata,
                    value: amount, expectAddress: expected)
            } else {
                request = .sendNative(
                    origin: originValue, clientId: clientID, redirect: redirect, chainId: chain, to: recipient,
                    value: amount ?? .zero, expectAddress: expected)
            }
            request.transactionFields = try transactionFields(options)
            return Parsed(request: request, typedData: nil)
        }
    }

    // MARK: - parse

    static func runParse(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let text = context.options.positional(0) ?? ""
        let callback: WaypointCallback
        do { callback = try WaypointCallback(parsing: text) } catch { throw .invalidInput("\(error)") }
        var object = JSONObject()
        switch callback.outcome {
        case .success: object["type"] = .string("success")
        case .failure: object["type"] = .string("fail")
        }
        object["method"] = .string(callback.method.rawValue)
        object["state"] = .string(callback.state)
        if let version = callback.version { object["version"] = .string(version) }
        switch callback.outcome {
        case .success(let data, let address, let secondaryAddress):
            object["data"] = .string(data)
            if let address { object["address"] = .string(address) }
            if let secondaryAddress { object["secondaryAddress"] = .string(secondaryAddress) }
        case .failure(let failure):
            object["code"] = .number(String(failure.code.code))
            if let name = failure.name { object["name"] = .string(name) }
            if !failure.message.isEmpty { object["message"] = .string(failure.message) }
        }
        context.printLine(JSONValue.object(object).serialized)
        return callback.failure == nil ? .success : .failure
    }

    // MARK: - Round trips

    static func roundTrip(
        _ name: String, summary: String, kind: Kind, extraFlags: [FlagSpec] = [], extraDetails: String? = nil
    ) -> Command {
        Command.leaf(
            name, summary: summary,
            details: """
                Without --redirect the callback comes to a loopback listener at http://127.0.0.1:PORT/callback
                (an ephemeral port; give --redirect http://127.0.0.1:N/path to fix it). A custom-scheme --redirect
                (mydapp://callback) waits on a Unix socket for "signerkit waypoint deliver"; --manual reads the
                pasted callback URL from stdin. "open: <url>" goes to stderr. Exit status 1 when the wallet refuses,
                the answer does not verify, or no callback arrives before --timeout.
                """ + (extraDetails.map { "\n" + $0 } ?? ""),
            synopsis: "--client-id ID [options]", flags: roundTripFlags + extraFlags,
            run: { (context) throws(CommandFailure) in try await runRoundTrip(context, kind: kind) })
    }

    static func runRoundTrip(_ context: CommandContext, kind: Kind) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        if options.has("--state") {
            throw context.usageError("--state applies to url only: a round trip uses a fresh single-use state")
        }
        if kind == .signMessage || kind == .signTypedData, !options.has("--expect-address") {
            throw context.usageError("missing --expect-address A (the address the signature must recover to)")
        }
        let seconds =
            try options.value("--timeout").map { (text) throws(CommandFailure) -> Int in
                guard let value = Int(text), value > 0, value <= 86_400 else {
                    throw .invalidInput("--timeout: expected 1…86400 seconds")
                }
                return value
            } ?? 300
        if !options.has("--jwks"), let flag = ["--issuer", "--leeway"].first(where: options.has) {
            throw context.usageError("\(flag) needs --jwks FILE|URL (the keys the ID token is checked against)")
        }
        let leewaySeconds =
            try options.value("--leeway").map { (text) throws(CommandFailure) -> Int64 in
                guard let value = Int64(text), value >= 0, value <= 86_400 else {
                    throw .invalidInput("--leeway: expected 0…86400 seconds")
                }
                return value
            } ?? 60
        if let issuerText = options.value("--issuer"), issuerText.isEmpty {
            throw .invalidInput("--issuer must not be empty")
        }
        let transport = try makeTransport(context)
        // Validate every flag against the real redirect before anything is opened.
        let parsed = try request(kind, redirect: transport.redirectURI, context: context)
        let verifier = options.value("--jwks").map { location in
            IDTokenVerifier(
                issuer: options.value("--issuer") ?? parsed.request.origin, clientID: parsed.request.clientId,
                leeway: leewaySeconds, keys: JWKSProvider(location: location))
        }
        let session = WaypointSession(
            origin: parsed.request.origin, clientId: parsed.request.clientId, transport: transport,
            timeout: .seconds(seconds), idTokenVerifier: verifier)
        let result: Result<String, WaypointError> = await {
            do throws(WaypointError) {
                return .success(try await perform(parsed, kind: kind, session: session, pkce: options.has("--pkce")))
            } catch {
                return .failure(error)
            }
        }()
        await session.close()
        switch result {
        case .success(let line):
            context.printLine(line)
            return .success
        case .failure(let error):
            switch error {
            case .invalidRequest, .messageNotText, .idToken: throw .invalidInput(error.description)
            default: throw .failure(error.description)
            }
        }
    }

    /// Runs the round trip; returns the line to print.
    static func perform(
        _ parsed: Parsed, kind: Kind, session: WaypointSession, pkce: Bool = false
    ) async throws(WaypointError) -> String {
        let request = parsed.request
        switch kind {
        case .authorize:
            guard case .authorize(let scope) = request.action else { throw .invalidRequest("--scope") }
            let auth = try await session.signIn(chainId: request.chainId, scope: scope, pkce: pkce)
            var object = JSONObject()
            if let address = auth.address { object["address"] = .string(address.checksummed) }
            if let secondary = auth.secondaryAddress { object["secondaryAddress"] = .string(secondary.checksummed) }
            object["idToken"] = .string(auth.idToken)
            if let identity = auth.identity {
                object["identity"] = .object(
                    JSONObject([
                        "sub": .string(identity.subject), "iss": .string(identity.issuer),
                        "aud": .array(identity.audience.map(JSONValue.string)),
                        "exp": .number(String(identity.expiresAt)), "iat": .number(String(identity.issuedAt)),
                        "claims": .object(identity.claims),
                    ]))
            }
            return JSONValue.object(object).serialized
        case .signMessage:
            guard case .personalSign(let message, let expected?) = request.action else {
                throw .invalidRequest("--expect-address")
            }
            let digest = PersonalMessage.digest(Array(message.utf8))
            let signature = try await session.perform(request) { (callback) throws(WaypointError) in
                try WaypointVerification.signature(callback, digest: digest, expected: expected)
            }
            return signature.hex
        case .signTypedData:
            guard let document = parsed.typedData, let expected = request.expectAddress else {
                throw .invalidRequest("--expect-address")
            }
            let digest: Digest32
            do { digest = try document.digest() } catch { throw .invalidRequest("typed data: \(error)") }
            let signature = try await session.perform(request) { (callback) throws(WaypointError) in
                try WaypointVerification.signature(callback, digest: digest, expected: expected)
            }
            return signature.hex
        case .send, .call:
            let hash = try await session.perform(request) { (callback) throws(WaypointError) in
                try WaypointVerification.transactionHash(callback)
            }
            return hash.hex
        }
    }

    /// The transport the flags ask for: loopback by default, a deep-link socket for a custom-scheme
    /// redirect, or pasted lines with `--manual`.
    static func makeTransport(_ context: CommandContext) throws(CommandFailure) -> any WaypointTransport {
        let options = context.options
        let io = context.io
        let announce = URLOpener.announce { url in io.writeStandardError("open: \(url)\n") }
        let display = [io.environment["DISPLAY"], io.environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
        let opener = display ? announce.then(URLOpener.systemBrowserIgnoringFailure) : announce
        let redirectURI = options.value("--redirect")
        if let redirectURI, !Waypoint.isValidRedirectURI(redirectURI) {
            throw .invalidInput(
                "--redirect: not a URI with a scheme (e.g. http://127.0.0.1:5000/callback or mydapp://callback)")
        }
        if options.has("--manual") {
            guard let redirectURI else {
                throw context.usageError("--manual needs --redirect URI (the registered redirect)")
            }
            return ManualTransport(
                redirectURI: redirectURI,
                readLine: {
                    guard let line = try? io.readStandardInputLine() else { return nil }
                    return String(decoding: line, as: UTF8.self)
                },
                write: { io.writeStandardError($0) })
        }
        do {
            guard let redirectURI else { return try LoopbackTransport(opener: opener) }
            let lower = redirectURI.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
                guard let loopback = loopbackAddress(redirectURI) else {
                    throw CommandFailure.invalidInput(
                        "--redirect: an http redirect must be http://127.0.0.1:PORT/path or http://localhost:PORT/path "
                            + "(the listener runs here); use --manual for other addresses")
                }
                return try LoopbackTransport(
                    port: loopback.port, path: loopback.path, host: loopback.host, opener: opener)
            }
            return try DeepLinkTransport(
                redirectURI: redirectURI, socketPath: options.value("--socket"), opener: opener)
        } catch let failure as CommandFailure {
            throw failure
        } catch let error as WaypointError {
            if case .invalidRequest = error { throw .invalidInput("--redirect: \(error)") }
            throw .failure("\(error)")
        } catch {
            throw .failure("\(error)")
        }
    }

    /// `http://127.0.0.1:PORT/path` or `http://localhost:PORT/path` → its parts.
    static func loopbackAddress(_ uri: String) -> (host: String, port: UInt16, path: String)? {
        guard uri.lowercased().hasPrefix("http://") else { return nil }
        let rest = uri.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, ["127.0.0.1", "localhost"].contains(parts[0].lowercased()), let port = UInt16(parts[1]),
            port > 0
        else { return nil }
        return (parts[0].lowercased(), port, path.isEmpty ? "/" : String(path))
    }

    // MARK: - deliver

    static func runDeliver(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let url = context.options.positional(0) ?? ""
        guard Waypoint.isValidRedirectURI(url.split(separator: "?", maxSplits: 1).first.map(String.init) ?? "") else {
            throw .invalidInput("not a callback URL: \(TextSafety.displayArgument(url))")
        }
        let reply: CallbackReply
        do { reply = try await DeepLinkTransport.deliver(url, socketPath: context.options.value("--socket")) } catch {
            throw .failure("\(error)")
        }
        guard reply.isAccepted else { throw .failure("the signer refused the callback: \(reply.text)") }
        context.printLine("accepted: \(reply.text)")
        return .success
    }

    // MARK: - simulate-wallet

    static func runSimulateWallet(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let options = context.options
        let port =
            try options.value("--port").map { (text) throws(CommandFailure) -> UInt16 in
                guard let port = UInt16(text) else { throw .invalidInput("--port: expected 0…65535") }
                return port
            } ?? 0
        var mode = HostedWalletSimulator.Mode.interactive
        switch options.value("--auto") {
        case nil: break
        case "approve": mode = .autoApprove
        case "reject": mode = .autoReject
        case let other?:
            throw .invalidInput("--auto: expected approve or reject, got \(TextSafety.displayArgument(other))")
        }
        let failure = try options.value("--fail-code").map { (text) throws(CommandFailure) -> WaypointErrorCode in
            guard let code = Int(text), code >= 0, code < 1_000_000_000 else {
                throw .invalidInput("--fail-code: expected a number")
            }
            return WaypointErrorCode(code: code)
        }
        let reported = try options.value("--reported-address").map { (text) throws(CommandFailure) in
            try address(text, flag: "--reported-address")
        }
        let secondary = try options.value("--secondary-address").map { (text) throws(CommandFailure) in
            try address(text, flag: "--secondary-address")
        }
        let exitAfter = try options.value("--exit-after").map { (text) throws(CommandFailure) -> Int in
            guard let value = Int(text), value > 0 else { throw .invalidInput("--exit-after: expected seconds") }
            return value
        }
        let signer = try await loadSigningKey(options, io: context.io)
        let simulator: HostedWalletSimulator
        do {
            simulator = try HostedWalletSimulator(
                configuration: .init(
                    signer: signer, reportedAddress: reported, secondaryAddress: secondary,
                    clientId: options.value("--client-id"),
                    mode: mode, failure: failure),
                port: port)
        } catch {
            throw .failure("\(error)")
        }
        context.printLine("listening: \(simulator.origin)")
        ReadyLine.announce(simulator.origin, to: context.io)
        context.io.writeStandardError("wallet \(simulator.configuration.walletAddress.checksummed); stop with Ctrl-C\n")
        context.io.writeStandardError(
            "jwks: \(simulator.origin)/.well-known/jwks.json (ID tokens: ES256, iss \(simulator.origin))\n")
        let end = exitAfter.map { ContinuousClock.now.advanced(by: .seconds($0)) }
        while end.map({ ContinuousClock.now < $0 }) ?? true {
            try? await Task.sleep(for: .milliseconds(200))
        }
        await simulator.stop()
        return .success
    }

    // MARK: - Helpers

    static func origin(_ options: ParsedOptions) throws(CommandFailure) -> String {
        let text = options.value("--origin") ?? Waypoint.defaultOrigin
        let lower = text.lowercased()
        guard lower.hasPrefix("https://") || lower.hasPrefix("http://"), !text.contains("?"), !text.contains("#"),
            Waypoint.isValidRedirectURI(text)
        else { throw .invalidInput("--origin: expected https://host[:port]") }
        return text
    }

    /// The forwarded transaction fields of send/call.
    static func transactionFields(_ options: ParsedOptions) throws(CommandFailure) -> WaypointTransactionFields {
        var fields = WaypointTransactionFields()
        if let text = options.value("--type") {
            let digits = text.dropFirst(2)
            guard text.lowercased().hasPrefix("0x"), !digits.isEmpty, digits.count <= 2,
                let type = UInt8(digits, radix: 16), type <= 0x7F
            else {
                throw .invalidInput(
                    "--type: expected a transaction type 0x0…0x7f (e.g. 0x2, 0x64), got \(TextSafety.displayArgument(text))"
                )
            }
            fields.type = type
        }
        func quantity(_ flag: String) throws(CommandFailure) -> UInt256? {
            try options.value(flag).map { (text) throws(CommandFailure) in try decimal(text, flag: flag) }
        }
        fields.gas = try quantity("--gas")
        fields.nonce = try quantity("--nonce")
        fields.gasPrice = try quantity("--gas-price")
        fields.maxFeePerGas = try quantity("--max-fee-per-gas")
        fields.maxPriorityFeePerGas = try quantity("--max-priority-fee-per-gas")
        if fields.gasPrice != nil, fields.maxFeePerGas != nil || fields.maxPriorityFeePerGas != nil {
            throw .invalidInput("--gas-price: give either --gas-price or the EIP-1559 fees, not both")
        }
        return fields
    }

    static func address(_ text: String, flag: String) throws(CommandFailure) -> Address {
        do { return try Address(text) } catch { throw .invalidInput("\(flag): \(error)") }
    }

    /// A non-negative decimal (or 0x-hex) integer.
    static func decimal(_ text: String, flag: String) throws(CommandFailure) -> UInt256 {
        guard let value = try? SignedMagnitude(text: text), !value.isNegative, !text.hasPrefix("+") else {
            throw .invalidInput("\(flag): expected a non-negative integer, got \(TextSafety.displayArgument(text))")
        }
        return value.magnitude
    }
}

extension URLOpener {
    /// The desktop browser, where a failure to start it is not an error (the URL is printed anyway).
    static let systemBrowserIgnoringFailure = URLOpener { url in try? await URLOpener.systemBrowser.open(url) }
}
