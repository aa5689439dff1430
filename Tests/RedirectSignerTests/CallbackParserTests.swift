import RedirectSigner
import Testing

@Suite("Callback parser")
struct CallbackParserTests {
    let base = "http://127.0.0.1:5000/callback"

    @Test func authSuccess() throws {
        let callback = try WaypointCallback(
            parsing: "\(base)?state=s1&method=auth&version=1.0&type=success&data=eyJ.eyJ.sig"
                + "&address=0x2c7536e3605d9c16a7a3d7b1898e529396a65c23&secondary_address=0xfff9976782d46cc05630d1f6ebab18b2324d6b14"
        )
        #expect(callback.base == base)
        #expect(callback.state == "s1")
        #expect(callback.method == .auth)
        #expect(callback.version == "1.0")
        #expect(
            callback.outcome
                == .success(
                    data: "eyJ.eyJ.sig", address: "0x2c7536e3605d9c16a7a3d7b1898e529396a65c23",
                    secondaryAddress: "0xfff9976782d46cc05630d1f6ebab18b2324d6b14"))
    }

    @Test func orderDoesNotMatterAndOptionalFieldsMayBeAbsent() throws {
        let a = try WaypointCallback(parsing: "\(base)?type=success&data=0xabc&method=sign&state=s")
        let b = try WaypointCallback(parsing: "\(base)?state=s&method=sign&type=success&data=0xabc")
        #expect(a == b)
        #expect(a.version == nil)
        #expect(a.outcome == .success(data: "0xabc", address: nil, secondaryAddress: nil))
    }

    @Test func unknownExtraParametersAndFragmentsAreIgnored() throws {
        let callback = try WaypointCallback(
            parsing: "mydapp://callback?state=s&method=send&type=success&data=0x01&extra=1#frag")
        #expect(callback.base == "mydapp://callback")
        #expect(callback.data == "0x01")
    }

    @Test(arguments: [
        ("%5BWALLET_USER_CANCEL%5D+User+rejected", "User rejected"),
        ("%5BWALLET_USER_CANCEL%5D%20User%20rejected", "User rejected"),
        ("%5BWALLET_USER_CANCEL%5D+a%2Bb+%2B+c", "a+b + c"),
        ("%5BWALLET_USER_CANCEL%5D+100%25+sure+%26+%3D", "100% sure & ="),
    ])
    func spacesAndPlusSigns(wire: String, text: String) throws {
        let callback = try WaypointCallback(parsing: "\(base)?state=s&method=sign&type=fail&code=1000&message=\(wire)")
        #expect(callback.failure == WaypointFailure(code: .userCancel, name: "WALLET_USER_CANCEL", message: text))
    }

    @Test(arguments: [
        (1000, WaypointErrorCode.userCancel, "WALLET_USER_CANCEL"),
        (1001, .signNoParams, "WALLET_SIGN_NO_PARAMS"),
        (1003, .invalidPayload, "WALLET_INVALID_PAYLOAD"),
        (1004, .authorizeInvalidPayload, "AUTHORIZE_INVALID_PAYLOAD"),
        (2000, .unknownError, "WALLET_UNKNOWN_ERR"),
        (2001, .noAddress, "WALLET_NO_ADDRESS_ERR"),
        (3000, .cantCreate, "WALLET_CANT_CREATE"),
        (4000, .cantSimulate, "WALLET_CANT_SIMULATE"),
    ])
    func everyErrorCode(code: Int, expected: WaypointErrorCode, name: String) throws {
        let callback = try WaypointCallback(
            parsing:
                "\(base)?state=s&method=send&version=2&type=fail&code=\(code)&message=%5B\(name)%5D+Something+failed")
        #expect(callback.failure?.code == expected)
        #expect(callback.failure?.code.code == code)
        #expect(callback.failure?.name == name)
        #expect(callback.failure?.message == "Something failed")
        #expect(expected.name == name)
        #expect(WaypointErrorCode(code: code) == expected)
    }

    @Test func unknownCodeStillParses() throws {
        let callback = try WaypointCallback(
            parsing: "\(base)?state=s&method=sign&type=fail&code=9999&message=%5BNEW_ERR%5D+Later")
        #expect(callback.failure == WaypointFailure(code: .unknown(9999), name: "NEW_ERR", message: "Later"))
        #expect(callback.failure?.code.name == nil)
    }

    @Test func messageWithoutNameGetsTheKnownName() throws {
        let callback = try WaypointCallback(parsing: "\(base)?state=s&method=sign&type=fail&code=1000&message=nope")
        #expect(callback.failure == WaypointFailure(code: .userCancel, name: "WALLET_USER_CANCEL", message: "nope"))
        let bare = try WaypointCallback(parsing: "\(base)?state=s&method=sign&type=fail&code=77")
        #expect(bare.failure == WaypointFailure(code: .unknown(77), name: nil, message: ""))
    }

    /// Fuzz finding (waypoint-callback): a message starting with spaces, without a `[NAME]`, printed as
    /// `[KNOWN_NAME]   text` and read back without its spaces, so a callback's URL parsed to another callback.
    @Test(arguments: ["  leading spaces", " one", "[NAME]  two after a name", "", "   "])
    func failureMessageRoundTripsThroughItsURL(message: String) throws {
        let url = "\(base)?state=s&method=sign&type=fail&code=1000&message=\(QueryEncoding.formEncode(message))"
        let callback = try WaypointCallback(parsing: url)
        #expect(try WaypointCallback(parsing: callback.url) == callback)
        let failure = try #require(callback.failure)
        #expect(WaypointFailure(code: failure.code, wireMessage: failure.wireMessage) == failure)
        if !message.hasPrefix("[") { #expect(failure.message == message) }
    }

    @Test(arguments: [
        ("", CallbackParseError.malformedURL("empty")),
        ("not a url", .malformedURL("contains spaces, control or non-ASCII characters")),
        ("callback?state=s", .malformedURL("no scheme")),
        ("http://127.0.0.1:5000/callback", .malformedURL("no query")),
        ("http://127.0.0.1/cb#?state=s&method=sign&type=success&data=1", .malformedURL("no query")),
        ("http:?state=s&method=sign&type=success&data=1", .malformedURL("nothing after the scheme")),
        ("http://h/cb?method=sign&type=success&data=0x", .missingParameter("state")),
        ("http://h/cb?state=&method=sign&type=success&data=0x", .missingParameter("state")),
        ("http://h/cb?state=s&method=sign&data=0x", .missingParameter("type")),
        ("http://h/cb?state=s&type=success&data=0x", .missingParameter("method")),
        ("http://h/cb?state=s&method=sign&type=success", .missingParameter("data")),
        ("http://h/cb?state=s&method=sign&type=fail&message=x", .missingParameter("code")),
        ("http://h/cb?state=s&state=t&method=sign&type=success&data=0x", .duplicateParameter("state")),
        ("http://h/cb?state=s&method=sign&type=success&data=0x&data=0y", .duplicateParameter("data")),
        ("http://h/cb?state=s&method=sign&type=fail&code=10a0", .nonNumericCode("10a0")),
        ("http://h/cb?state=s&method=sign&type=fail&code=-1", .nonNumericCode("-1")),
        ("http://h/cb?state=s&method=sign&type=fail&code=", .nonNumericCode("")),
        ("http://h/cb?state=s&method=sign&type=fail&code=+1000", .nonNumericCode(" 1000")),
        ("http://h/cb?state=s&method=sign&type=maybe&data=0x", .invalidType("maybe")),
        ("http://h/cb?state=s&method=login&type=success&data=0x", .invalidMethod("login")),
        ("http://h/cb?state=s%ZZ&method=sign&type=success&data=0x", .invalidEncoding("state")),
        ("http://h/cb?state=s&method=sign&type=success&data=%FF", .invalidEncoding("data")),
    ])
    func malformedCallbacks(url: String, expected: CallbackParseError) {
        #expect(throws: expected) { try WaypointCallback(parsing: url) }
    }

    @Test func buildsWhatItParses() throws {
        let failure = WaypointFailure(code: .userCancel, name: "WALLET_USER_CANCEL", message: "User rejected")
        let callback = WaypointCallback(
            base: base, state: "s t", method: .sign, version: "1.0", outcome: .failure(failure))
        #expect(
            callback.url
                == "\(base)?state=s+t&method=sign&version=1.0&type=fail&code=1000&message=%5BWALLET_USER_CANCEL%5D+User+rejected"
        )
        #expect(try WaypointCallback(parsing: callback.url) == callback)
        let success = WaypointCallback(
            base: base, state: "s", method: .auth, version: nil,
            outcome: .success(data: "a+b", address: "0x01", secondaryAddress: nil))
        #expect(try WaypointCallback(parsing: success.url) == success)
    }
}
