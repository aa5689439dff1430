import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKitHTTPServer
import SignerKitService
import SignerKitTestSupport
import Testing

/// The service's connection limits from its configuration, and its decision on a request's head (no sockets,
/// no node: a service without upstream).
@Suite("signer service: connection limits and request heads")
struct ServiceConnectionLimitsTests {
    static let token = "head-check-token-91c"

    /// The configuration text with `limits` (a JSON object's members) and the test client.
    static func configurationText(limits: String?) -> String {
        let hash = Hex.encode(SHA256.hash(Array(token.utf8)), prefix: false)
        let limitsMember = limits.map { #", "limits": {\#($0)}"# } ?? ""
        return #"""
            {"listen": "127.0.0.1:0", "keys": [{"keyFile": "k.hex"}], "chainId": "eip155:2021",
             "clients": [{"name": "app", "tokenSha256": "\#(hash)"}]\#(limitsMember)}
            """#
    }

    static func handler(limits: String? = nil) throws -> ServiceHTTPHandler {
        let configuration = try ServiceConfiguration(jsonText: configurationText(limits: limits), relativeTo: "/tmp")
        let service = try SignerService(
            configuration: configuration, signers: [try TestKeys.signer(TestKeys.alphaHex)], upstream: [:])
        return ServiceHTTPHandler(service: service, log: { _ in })
    }

    static func head(_ method: String, _ target: String, authorization: String?) -> HTTPServerRequest {
        HTTPServerRequest(
            method: method, target: target, fields: authorization.map { [("authorization", $0)] } ?? [], body: [])
    }

    @Test("limits.maxConnectionsPerAddress and requestReceiveTimeoutMs reach the server's limits; defaults 64 and 10 s")
    func limits() throws {
        let configured = try Self.handler(
            limits: #""maxConnections": 100, "maxConnectionsPerAddress": 10, "requestReceiveTimeoutMs": 2500"#)
        #expect(
            configured.limits
                == HTTPServerLimits(
                    maxConnections: 100, maxConnectionsPerAddress: 10, requestReceiveTimeout: .milliseconds(2500)))
        let defaults = try Self.handler().limits
        #expect(defaults.maxConnections == 256)
        #expect(defaults.maxConnectionsPerAddress == 64)
        #expect(defaults.requestReceiveTimeout == .seconds(10))
    }

    @Test("out-of-range connection limits are refused with their key path")
    func invalidLimits() {
        let cases: [(String, String)] = [
            (#""maxConnectionsPerAddress": 0"#, "limits.maxConnectionsPerAddress"),
            (#""maxConnectionsPerAddress": 10001"#, "limits.maxConnectionsPerAddress"),
            (#""requestReceiveTimeoutMs": 99"#, "limits.requestReceiveTimeoutMs"),
            (#""requestReceiveTimeoutMs": "10000""#, "limits.requestReceiveTimeoutMs"),
            (#""requestReceiveTimeout": 10000"#, "limits.requestReceiveTimeout"),
        ]
        for (limits, path) in cases {
            let error = #expect(throws: ServiceConfigurationError.self, "\(limits)") {
                try ServiceConfiguration(jsonText: Self.configurationText(limits: limits), relativeTo: "/tmp")
            }
            #expect(error?.path == path, "\(limits): \(String(describing: error))")
        }
    }

    @Test("a head: POST / with the token is credentialed, without it 401 at once; other paths are read as usual")
    func headCheck() throws {
        let handler = try Self.handler()
        let verdicts = [
            handler.checkHead(Self.head("POST", "/", authorization: "Bearer \(Self.token)")),
            handler.checkHead(Self.head("POST", "/", authorization: nil)),
            handler.checkHead(Self.head("POST", "/", authorization: "Bearer wrong")),
            handler.checkHead(Self.head("POST", "/", authorization: "Bearer \(Self.token)\u{0}junk")),
            handler.checkHead(Self.head("GET", "/healthz", authorization: nil)),
        ]
        let described = verdicts.map { verdict -> String in
            switch verdict {
            case .credentialed: "credentialed"
            case .anonymous: "anonymous"
            case .refuse(let answer): "refuse \(answer.status)"
            }
        }
        #expect(described == ["credentialed", "refuse 401", "refuse 401", "refuse 401", "anonymous"])
    }

    @Test("a bearer token followed by a NUL and more is not the token: 401")
    func tokenWithNUL() async throws {
        let handler = try Self.handler()
        let body = Array(#"{"jsonrpc":"2.0","id":1,"method":"eth_accounts"}"#.utf8)
        for value in ["Bearer \(Self.token)\u{0}junk", "Bearer \(Self.token)\u{0}", "Bearer \(Self.token)\u{1}"] {
            let answer = await handler.handle(
                HTTPServerRequest(method: "POST", target: "/", fields: [("authorization", value)], body: body))
            #expect(answer.status == 401, "\(value.debugDescription)")
        }
        let valid = await handler.handle(
            HTTPServerRequest(
                method: "POST", target: "/", fields: [("authorization", "Bearer \(Self.token)")], body: body))
        #expect(valid.status == 200)
    }
}
