import EthereumPrimitives
import Foundation
import Secp256k1
import SignerKit
import SignerKitTestSupport
import SoftwareSigner
import Testing

/// Policies on what an action does (its preview): each passes and refuses, nothing signed on refusal.
@Suite("Intent policies")
struct IntentPolicyTests {
    typealias P = StandardPayloads
    let key: SoftwareKeySignerBox
    let base = ChainID(eip155: 8453)
    let clock: @Sendable () -> Date = { Date(timeIntervalSince1970: TimeInterval(previewNow)) }

    init() throws { key = try SoftwareKeySignerBox() }

    var account: Address { key.signer.address }

    func dispatcher(_ counter: CallCounter, @PolicyBuilder policies: () -> [any ActionPolicy]) throws -> RpcDispatcher {
        let dispatcher = previewDispatcher(policies: policies)
        try dispatcher.register(CountingBackend(key: key.key, counter: counter))
        return dispatcher
    }

    func refusal(
        _ actions: [WalletRpcAction], index: Int, policy: String, contains text: String,
        sourceLocation: SourceLocation = #_sourceLocation, @PolicyBuilder policies: () -> [any ActionPolicy]
    ) async throws {
        let counter = CallCounter()
        let dispatcher = try dispatcher(counter, policies: policies)
        let error = await #expect(throws: DispatchError.self, sourceLocation: sourceLocation) {
            try await dispatcher.sign(actions: actions)
        }
        guard case .policyViolation(let name, let reason)? = error?.kind else {
            Issue.record("not a policy violation: \(String(describing: error))", sourceLocation: sourceLocation)
            return
        }
        #expect(error?.index == index, sourceLocation: sourceLocation)
        #expect(name == policy, sourceLocation: sourceLocation)
        #expect(reason.contains(text), "\(reason)", sourceLocation: sourceLocation)
        #expect(counter.calls == 0, sourceLocation: sourceLocation)
    }

    func passes(
        _ actions: [WalletRpcAction], sourceLocation: SourceLocation = #_sourceLocation,
        @PolicyBuilder policies: () -> [any ActionPolicy]
    ) async throws {
        let counter = CallCounter()
        let signed = try await dispatcher(counter, policies: policies).sign(actions: actions)
        #expect(signed.results.count == actions.count, sourceLocation: sourceLocation)
        #expect(counter.calls == actions.count, sourceLocation: sourceLocation)
    }

    func permit(_ value: UInt256, spender: Address = P.spender, deadline: UInt64 = previewNow + 600) -> WalletRpcAction
    {
        P.signTypedData(
            account,
            P.permit(
                token: P.usdcBase, chainId: 8453, owner: account, spender: spender, value: value,
                deadline: UInt256(deadline)), chain: base)
    }

    func authorization(_ value: UInt256, to: Address = P.merchant, validBefore: UInt64 = previewNow + 600)
        -> WalletRpcAction
    {
        P.signTypedData(
            account,
            P.authorization(
                "TransferWithAuthorization", token: P.usdcBase, chainId: 8453, from: account, to: to, value: value,
                validBefore: validBefore), chain: base)
    }

    func permit2(_ value: UInt256) -> WalletRpcAction {
        P.signTypedData(
            account,
            P.permitTransferFrom(
                chainId: 8453, token: P.usdcBase, amount: value, spender: P.spender, deadline: previewNow + 60),
            chain: base)
    }

    @Test("TokenSpendCap sums permits, Permit2 and ERC-3009 of one token over the batch")
    func tokenSpendCap() async throws {
        let cap = TokenSpendCap([TokenSpendCap.Cap(chain: base, token: P.usdcBase, maximum: UInt256(3_000_000))])
        try await passes([permit(UInt256(1_000_000)), authorization(UInt256(1_000_000)), permit2(UInt256(1_000_000))]) {
            cap
        }
        try await refusal(
            [permit(UInt256(1_000_000)), authorization(UInt256(1_000_000)), permit2(UInt256(1_000_001))], index: 2,
            policy: "TokenSpendCap",
            contains: "brings the batch's total of USDC on eip155:8453 to 3.000001 USDC, over the cap of 3.000000 USDC"
        ) { cap }
        // Another chain's cap does not count; refusing uncapped tokens names the token.
        try await refusal(
            [permit(UInt256(1))], index: 0, policy: "TokenSpendCap",
            contains: "token USDC (\(P.usdcBase.checksummed)) on eip155:8453 has no cap"
        ) {
            TokenSpendCap(
                [TokenSpendCap.Cap(chain: ChainID(eip155: 1), token: P.usdcBase, maximum: .max)],
                refusesOtherTokens: true)
        }
    }

    @Test("NoUnlimitedApprovals refuses unlimited permits, passes bounded ones")
    func noUnlimited() async throws {
        try await passes([permit(UInt256(5))]) { NoUnlimitedApprovals() }
        try await refusal(
            [permit(UInt256(5)), permit(.max, spender: P.stranger)], index: 1, policy: "NoUnlimitedApprovals",
            contains: "permit of an unlimited amount of \(P.usdcBase.checksummed) to spender \(P.stranger.checksummed)"
        ) { NoUnlimitedApprovals() }
    }

    @Test("AllowedSpenders and AllowedRecipients")
    func allowedParties() async throws {
        try await passes([permit(UInt256(1)), authorization(UInt256(1))]) {
            AllowedSpenders([P.spender])
            AllowedRecipients([P.merchant])
        }
        try await refusal(
            [permit(UInt256(1), spender: P.stranger)], index: 0, policy: "AllowedSpenders", contains: "spender"
        ) {
            AllowedSpenders([P.spender])
        }
        try await refusal(
            [authorization(UInt256(1), to: P.stranger)], index: 0, policy: "AllowedRecipients", contains: "recipient"
        ) {
            AllowedRecipients([P.merchant])
        }
    }

    @Test("MaxValidity judges deadlines against the injected clock")
    func maxValidity() async throws {
        let clock = self.clock
        try await passes([permit(UInt256(1), deadline: previewNow + 3600)]) {
            MaxValidity(maximumSeconds: 3600, now: clock)
        }
        try await refusal(
            [authorization(UInt256(1), validBefore: previewNow + 3601)], index: 0, policy: "MaxValidity",
            contains: "valid until 2026-01-01T01:00:01Z, more than 3600 s ahead"
        ) { MaxValidity(maximumSeconds: 3600, now: clock) }
    }

    @Test("RequireRecognized refuses an arbitrary personal_sign unless messages are allowed")
    func requireRecognized() async throws {
        let message = P.personalSign(account, "I transfer all my assets to 0xbad", chain: base)
        try await refusal(
            [permit(UInt256(1)), message], index: 1, policy: "RequireRecognized", contains: "unrecognized"
        ) {
            RequireRecognized()
        }
        try await passes([permit(UInt256(1)), message]) { RequireRecognized(allowing: [.message]) }
    }

    @Test("the policy file loads every built-in policy, and refuses unknown members and bad values by path")
    func policyFile() async throws {
        let text = """
            {"allowedChains":["eip155:8453"],"allowedMethods":["eth_signTypedData_v4","personal_sign"],
             "nativeValueCap":"0","feeCap":{"maxFeePerGas":"100000000000"},"gasLimitCap":"500000",
             "tokenSpendCap":[{"chainId":"eip155:8453","token":"\(P.usdcBase.checksummed)","maximum":"2000000"}],
             "refuseUncappedTokens":true,"noUnlimitedApprovals":true,"allowedSpenders":["\(P.spender.checksummed)"],
             "allowedRecipients":["\(P.merchant.checksummed)"],"maxValiditySeconds":"3600",
             "requireRecognized":{"allow":["siwe"]}}
            """
        let policies = try PolicyFile.policies(jsonText: text, now: clock)
        #expect(
            policies.map(\.name) == [
                "AllowedChains", "AllowedMethods", "NativeValueCap", "FeeCap", "GasLimitCap", "TokenSpendCap",
                "NoUnlimitedApprovals", "AllowedSpenders", "AllowedRecipients", "MaxValidity", "RequireRecognized",
            ])
        try await passes([permit(UInt256(1_000_000)), authorization(UInt256(1_000_000))]) { policies }
        try await refusal(
            [permit(UInt256(1_000_000)), authorization(UInt256(1_000_001))], index: 1, policy: "TokenSpendCap",
            contains: "over the cap"
        ) {
            policies
        }
        // The complete example of docs/DISPATCHER.md ("Policy files"), copied here.
        let documented = """
            {
              "allowedChains": ["eip155:8453", "eip155:10"],
              "allowedMethods": ["eth_signTypedData_v4", "personal_sign", "eth_sendTransaction"],
              "nativeValueCap": "10000000000000000",
              "feeCap": { "maxFeePerGas": "100000000000", "maxPriorityFeePerGas": "2000000000", "maxTotalFee": "5000000000000000" },
              "gasLimitCap": "500000",
              "tokenSpendCap": [
                { "chainId": "eip155:8453", "token": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", "maximum": "50000000" },
                { "chainId": "eip155:10", "token": "0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85", "maximum": "50000000" }
              ],
              "refuseUncappedTokens": true,
              "noUnlimitedApprovals": true,
              "allowedSpenders": ["0x000000000022D473030F116dDEE9F6B43aC78BA3"],
              "allowedRecipients": ["0x00000000000000000000000000000000c0ffee00"],
              "maxValiditySeconds": "3600",
              "requireRecognized": { "allow": ["siwe"] }
            }
            """
        #expect(try PolicyFile.policies(jsonText: documented).count == 11)
        let bad: [(String, String)] = [
            (#"{"allowedChainz":[]}"#, "policy file allowedChainz: unknown policy"),
            (#"{"allowedChains":["bitcoin"]}"#, "policy file allowedChains[0]:"),
            (#"{"allowedMethods":["eth_sign"]}"#, "policy file allowedMethods[0]: unknown method eth_sign"),
            (#"{"nativeValueCap":true}"#, "policy file nativeValueCap: expected a decimal"),
            (#"{"feeCap":{"maxFee":"1"}}"#, "policy file feeCap.maxFee: unknown member"),
            (
                #"{"tokenSpendCap":[{"chainId":"eip155:1","token":"0x12","maximum":"1"}]}"#,
                "policy file tokenSpendCap[0].token:"
            ),
            (
                #"{"tokenSpendCap":[{"chainId":"eip155:1","token":"\#(P.usdcBase.checksummed)"}]}"#,
                "policy file tokenSpendCap[0].maximum: missing"
            ),
            (#"{"requireRecognized":{"allow":["nope"]}}"#, "policy file requireRecognized.allow[0]: unknown kind nope"),
            (#"{"noUnlimitedApprovals":"yes"}"#, "policy file noUnlimitedApprovals: expected true or false"),
        ]
        for (text, prefix) in bad {
            let error = #expect(throws: PolicyFileError.self) { try PolicyFile.policies(jsonText: text) }
            #expect(error?.description.hasPrefix(prefix) == true, "\(String(describing: error))")
        }
    }
}

/// A software key for the counting backend.
struct SoftwareKeySignerBox: Sendable {
    let signer: SoftwareKeySigner
    let key: PrivateKey

    init() throws {
        signer = try TestKeys.signer(TestKeys.alphaHex)
        key = try TestKeys.key(TestKeys.alphaHex)
    }
}
