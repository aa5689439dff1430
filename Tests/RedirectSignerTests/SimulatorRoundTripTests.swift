import EIP712
import EthereumPrimitives
import Foundation
import RedirectSigner
import RedirectSignerTesting
import RedirectSignerTransports
import Secp256k1
import SignerKit
import SignerKitTestSupport
import Testing

@Suite("Round trips through the simulated hosted wallet")
struct SimulatorRoundTripTests {
    @Test func authorize() async throws {
        let wallet = try SimulatedWallet.make(
            .init(signer: TestKeys.wallet, secondaryAddress: TestKeys.other.address, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let auth = try await wallet.session.authorize(chainId: 2021)
        #expect(auth.address == TestKeys.wallet.address)
        #expect(auth.secondaryAddress == TestKeys.other.address)
        #expect(auth.idToken.split(separator: ".", omittingEmptySubsequences: false).count == 3)
        #expect(auth.version == "1.0")
        let received = try #require(wallet.simulator.receivedRequests.first)
        #expect(received.path == "/client/test-client/authorize")
        #expect(received.parameters["scope"] == "openid wallet")
        #expect(received.parameters["chainId"] == "2021")
        #expect(received.parameters["redirect"] == wallet.session.redirectURI)
        #expect(WaypointStateStore.isStateShaped(received.parameters["state"] ?? ""))
        let pages = try await wallet.browser.waitForPages(1)
        #expect(pages.first?.status == 200)
        #expect(pages.first?.body.contains("You can close this window") == true)
    }

    @Test func personalSignSurvivesReservedCharacters() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let message = "Pay 1+1 RON & sign=yes #42 100% ✓"
        let signature = try await wallet.session.signPersonalMessage(message, account: TestKeys.wallet.address)
        #expect(
            try ECDSA.recoverAddress(prehash: PersonalMessage.digest(Array(message.utf8)), signature: signature)
                == TestKeys.wallet.address)
        #expect(wallet.simulator.receivedRequests.first?.parameters["message"] == message)
        #expect(
            wallet.simulator.receivedRequests.first?.parameters["expectAddress"] == TestKeys.wallet.address.checksummed)
    }

    @Test func typedData() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let typedData = try TypedData(jsonText: Fixtures.typedDataJSON)
        let signature = try await wallet.session.signTypedData(typedData, account: TestKeys.wallet.address)
        #expect(
            try ECDSA.recoverAddress(prehash: typedData.digest(), signature: signature) == TestKeys.wallet.address)
        let sent = try #require(wallet.simulator.receivedRequests.first?.parameters["typedData"])
        #expect(try TypedData(jsonText: sent).digest() == typedData.digest())
    }

    @Test func typedDataForAnotherChainIsRefusedBeforeSending() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let typedData = try TypedData(jsonText: Fixtures.typedDataJSON)
        await #expect(throws: WaypointError.self) {
            try await wallet.session.signTypedData(typedData, account: TestKeys.wallet.address, chainId: 2021)
        }
        #expect(wallet.simulator.receivedRequests.isEmpty)
    }

    @Test func sendNativeAndContractCall() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        let to = TestKeys.other.address
        let first = try await wallet.session.sendTransaction(
            to: to, value: 1_000_000_000_000_000, data: nil, account: TestKeys.wallet.address, chainId: 2021)
        let second = try await wallet.session.sendTransaction(
            to: to, value: nil, data: [0xa9, 0x05, 0x9c, 0xbb], account: TestKeys.wallet.address)
        #expect(first != second)
        let requests = wallet.simulator.receivedRequests
        #expect(requests.map(\.path) == ["/wallet/send", "/wallet/send"])
        #expect(requests[0].parameters["value"] == "1000000000000000")
        #expect(requests[0].parameters["data"] == nil)
        #expect(requests[0].parameters["chainId"] == "2021")
        #expect(requests[1].parameters["data"] == "0xa9059cbb")
        #expect(requests[1].parameters["value"] == nil)
        #expect(requests[1].parameters["to"] == to.checksummed)
    }

    @Test(arguments: WaypointErrorCode.known + [.unknown(5555)])
    func everyWalletErrorCode(code: WaypointErrorCode) async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove, failure: code))
        defer { Task { await wallet.close() } }
        await #expect(
            throws: WaypointError.walletFailure(
                WaypointFailure(code: code, name: code.name, message: code.defaultMessage))
        ) {
            try await wallet.session.sendTransaction(
                to: TestKeys.other.address, value: 1, data: nil, account: TestKeys.wallet.address)
        }
    }

    @Test func rejectIsUserCancel() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoReject))
        defer { Task { await wallet.close() } }
        await #expect(
            throws: WaypointError.walletFailure(
                WaypointFailure(code: .userCancel, name: "WALLET_USER_CANCEL", message: "User rejected"))
        ) { try await wallet.session.signPersonalMessage("no", account: TestKeys.wallet.address) }
    }

    @Test func foreignSignerIsAVerificationError() async throws {
        // The wallet claims to be TestKeys.wallet (so expectAddress passes) but signs with another key.
        let wallet = try SimulatedWallet.make(
            .init(signer: TestKeys.other, reportedAddress: TestKeys.wallet.address, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        await #expect {
            try await wallet.session.signPersonalMessage("hello", account: TestKeys.wallet.address)
        } throws: { error in
            guard case WaypointError.verificationFailed(let text) = error else { return false }
            return text.contains(TestKeys.other.address.checksummed)
        }
        let typedData = try TypedData(jsonText: Fixtures.typedDataJSON)
        await #expect(throws: WaypointError.self) {
            try await wallet.session.signTypedData(typedData, account: TestKeys.wallet.address)
        }
        let pages = try await wallet.browser.waitForPages(2)
        #expect(pages.allSatisfy { $0.body.contains("SignerKit refused this response") })
    }

    @Test func expectAddressOfAnotherAccountIs2001() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        await #expect {
            try await wallet.session.signPersonalMessage("hello", account: TestKeys.other.address)
        } throws: { error in
            guard case WaypointError.walletFailure(let failure) = error else { return false }
            return failure.code == .noAddress
        }
    }

    @Test func binaryMessageIsRefusedBeforeSending() async throws {
        let wallet = try SimulatedWallet.make(.init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await wallet.close() } }
        await #expect(throws: WaypointError.messageNotText) {
            try await wallet.session.signPersonalMessage(
                bytes: [0xde, 0xad, 0xbe, 0xef], account: TestKeys.wallet.address)
        }
        #expect(wallet.simulator.receivedRequests.isEmpty)
    }

    @Test func interactiveApprovalThroughTheHTMLForm() async throws {
        let simulator = try HostedWalletSimulator(configuration: .init(signer: TestKeys.wallet))
        let opener = RecordingOpener()
        let clock = ManualClock()
        let session = WaypointSession(
            origin: simulator.origin, clientId: "c",
            transport: try LoopbackTransport(opener: opener.opener, clock: clock), clock: clock)
        defer {
            Task {
                await session.close()
                await simulator.stop()
            }
        }
        let signing = Task { try await session.signPersonalMessage("click me", account: TestKeys.wallet.address) }
        let page = try await HTTPClient.get(try await opener.url())
        #expect(page.status == 200)
        #expect(page.body.contains("id=approve"))
        #expect(page.body.contains("id=reject"))
        #expect(page.body.contains("click me"))
        let id = try #require(simulator.pendingApprovals.first)
        let final = try await HTTPClient.post("\(simulator.origin)/decide", form: "id=\(id)&decision=approve")
        #expect(final.status == 200)
        #expect(final.finalURL.hasPrefix(session.redirectURI))
        let signature = try await signing.value
        #expect(
            try ECDSA.recoverAddress(prehash: PersonalMessage.digest(Array("click me".utf8)), signature: signature)
                == TestKeys.wallet.address)
        let again = try await HTTPClient.post("\(simulator.origin)/decide", form: "id=\(id)&decision=approve")
        #expect(again.status == 410)
    }

    @Test func simulatorValidatesParameters() async throws {
        let simulator = try HostedWalletSimulator(configuration: .init(signer: TestKeys.wallet, mode: .autoApprove))
        defer { Task { await simulator.stop() } }
        let redirect = QueryEncoding.percentEncode("http://127.0.0.1:1/cb")
        let common = "clientId=c&redirect=\(redirect)&chainId=2020&state=s1"
        func location(_ target: String) async throws -> WaypointCallback {
            let response = try await RawHTTP.get(port: simulator.port, target)
            #expect(response.status == 302)
            return try WaypointCallback(parsing: try #require(response.headers["location"]))
        }
        #expect(try await location("/wallet/sign?\(common)").failure?.code == .signNoParams)
        #expect(
            try await location("/wallet/sign?\(common)&message=a&typedData=%7B%7D").failure?.code == .invalidPayload)
        #expect(try await location("/wallet/sign?\(common)&typedData=%7B%7D").failure?.code == .invalidPayload)
        #expect(try await location("/wallet/send?\(common)&to=0x12").failure?.code == .invalidPayload)
        #expect(
            try await location("/wallet/send?\(common)&to=\(TestKeys.other.address.lowercased)&value=0x10").failure?
                .code == .invalidPayload)
        #expect(
            try await location("/client/c/authorize?clientId=c&redirect=\(redirect)&chainId=x&state=s").failure?.code
                == .authorizeInvalidPayload)
        #expect(
            try await location("/wallet/sign?\(common)&message=a&expectAddress=\(TestKeys.other.address.lowercased)")
                .failure?.code
                == .noAddress)
        let ok = try await location("/wallet/sign?\(common)&message=a+b")
        #expect(ok.state == "s1")
        #expect(ok.method == .sign)
        let okSignature = try RecoverableSignature(hex: try #require(ok.data))
        #expect(
            try ECDSA.recoverAddress(prehash: PersonalMessage.digest(Array("a b".utf8)), signature: okSignature)
                == TestKeys.wallet.address)
        #expect(try await RawHTTP.get(port: simulator.port, "/wallet/sign?clientId=c&chainId=1&state=s").status == 400)
        #expect(
            try await RawHTTP.get(port: simulator.port, "/wallet/sign?clientId=c&redirect=\(redirect)&chainId=1").status
                == 400)
        #expect(
            try await RawHTTP.get(port: simulator.port, "/wallet/sign?\(common)&state=again&message=a").status == 400)
        #expect(try await RawHTTP.get(port: simulator.port, "/client/d/authorize?\(common)").status == 400)
        #expect(try await RawHTTP.get(port: simulator.port, "/elsewhere").status == 404)
    }
}
