import EthereumPrimitives
import RedirectSigner
import Testing

@Suite("Request builders")
struct RequestBuilderTests {
    let wallet = address("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
    let token = address("0xfff9976782d46cc05630d1f6ebab18b2324d6b14")
    let redirect = "http://127.0.0.1:5000/callback"
    let encodedRedirect = "http%3A%2F%2F127.0.0.1%3A5000%2Fcallback"

    @Test func authorize() {
        let request = WaypointRequest.authorize(clientId: "my-client", redirect: redirect, chainId: 2021)
        #expect(
            request.url(state: "f47ac10b-58cc-4372-a567-0e02b2c3d479")
                == "https://waypoint.roninchain.com/client/my-client/authorize?clientId=my-client&redirect=\(encodedRedirect)"
                + "&chainId=2021&state=f47ac10b-58cc-4372-a567-0e02b2c3d479&scope=openid%20wallet")
        #expect(request.method == .auth)
    }

    @Test func authorizeWithoutScopeOmitsIt() {
        let request = WaypointRequest.authorize(
            origin: "https://id.example/", clientId: "c", redirect: "mydapp://callback", scope: [])
        #expect(
            request.url(state: "s")
                == "https://id.example/client/c/authorize?clientId=c&redirect=mydapp%3A%2F%2Fcallback&chainId=2020&state=s"
        )
    }

    @Test func personalSignEncodesReservedCharacters() {
        let request = WaypointRequest.personalSign(
            clientId: "c", redirect: redirect, message: "a+b & c=d #e 100%", expectAddress: wallet)
        #expect(
            request.url(state: "s")
                == "https://waypoint.roninchain.com/wallet/sign?clientId=c&redirect=\(encodedRedirect)&chainId=2020&state=s"
                + "&message=a%2Bb%20%26%20c%3Dd%20%23e%20100%25&expectAddress=0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
        )
    }

    @Test func personalSignWithoutExpectAddressOmitsIt() {
        let request = WaypointRequest.personalSign(clientId: "c", redirect: redirect, message: "héllo\n")
        #expect(
            request.url(state: "s")
                == "https://waypoint.roninchain.com/wallet/sign?clientId=c&redirect=\(encodedRedirect)&chainId=2020&state=s"
                + "&message=h%C3%A9llo%0A")
    }

    @Test func personalSignBytesMustBeText() throws {
        let request = try WaypointRequest.personalSign(
            clientId: "c", redirect: redirect, messageBytes: Array("hi".utf8))
        #expect(request.action == .personalSign(message: "hi", expectAddress: nil))
        #expect(throws: WaypointError.messageNotText) {
            try WaypointRequest.personalSign(clientId: "c", redirect: redirect, messageBytes: [0xff, 0xfe, 0x00])
        }
    }

    @Test func typedDataIsCompactJSON() throws {
        let json = try JSONValue(parsing: #"{ "a" : "x+y", "b" : [1, 2] }"#)
        let request = WaypointRequest.signTypedData(
            clientId: "c", redirect: redirect, chainId: 2021, typedData: json, expectAddress: wallet)
        #expect(
            request.url(state: "s")
                == "https://waypoint.roninchain.com/wallet/sign?clientId=c&redirect=\(encodedRedirect)&chainId=2021&state=s"
                + "&typedData=%7B%22a%22%3A%22x%2By%22%2C%22b%22%3A%5B1%2C2%5D%7D"
                + "&expectAddress=0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
    }

    @Test func sendNative() {
        let request = WaypointRequest.sendNative(
            clientId: "c", redirect: redirect, to: token, value: UInt256(1_000_000_000_000_000_000),
            expectAddress: wallet)
        #expect(
            request.url(state: "s")
                == "https://waypoint.roninchain.com/wallet/send?clientId=c&redirect=\(encodedRedirect)&chainId=2020&state=s"
                + "&to=0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14&value=1000000000000000000"
                + "&expectAddress=0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
        #expect(request.method == .send)
    }

    @Test func contractCallWithAndWithoutValue() {
        let call = WaypointRequest.contractCall(
            clientId: "c", redirect: redirect, to: token, data: [0xa9, 0x05, 0x9c, 0xbb])
        #expect(
            call.url(state: "s")
                == "https://waypoint.roninchain.com/wallet/send?clientId=c&redirect=\(encodedRedirect)&chainId=2020&state=s"
                + "&to=0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14&data=0xa9059cbb")
        let paying = WaypointRequest.contractCall(
            clientId: "c", redirect: redirect, chainId: 2021, to: token, data: [0x01], value: 5, expectAddress: wallet)
        #expect(
            paying.url(state: "s")
                == "https://waypoint.roninchain.com/wallet/send?clientId=c&redirect=\(encodedRedirect)&chainId=2021&state=s"
                + "&to=0xfFf9976782d46CC05630D1f6eBAb18b2324d6B14&value=5&data=0x01"
                + "&expectAddress=0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
    }

    @Test func clientIdInPathIsEncoded() {
        let request = WaypointRequest.authorize(clientId: "a/b c", redirect: redirect, scope: ["openid"])
        #expect(request.endpoint == "https://waypoint.roninchain.com/client/a%2Fb%20c/authorize")
    }

    @Test func stateIsEncodedToo() {
        let request = WaypointRequest.authorize(clientId: "c", redirect: redirect, scope: [])
        #expect(request.url(state: "a&b=c").hasSuffix("&state=a%26b%3Dc"))
    }

    @Test func encodingRoundTrips() {
        for text in ["+", " ", "%2B", "a&b=c#d", "ü€😀", "~-._", ""] {
            let encoded = QueryEncoding.percentEncode(text)
            #expect(QueryEncoding.formDecode(encoded[...]) == text)
            #expect(QueryEncoding.formDecode(QueryEncoding.formEncode(text)[...]) == text)
        }
        #expect(QueryEncoding.percentEncode("+ ") == "%2B%20")
        #expect(QueryEncoding.formEncode("+ ") == "%2B+")
    }
}
