import EthereumPrimitives
import EthereumTransactions
import Foundation
import Testing

@testable import SignerKitCommands

extension PKCS11InProcessTests {
    @Test("auth sign with a token key: the tuple recovers to the token's account; the policy still applies")
    func authorization() async throws {
        let label = try await importVectorKey("auth")
        let delegate = "0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B"
        let input = #"{"chainId":"0x2105","address":"\#(delegate)","nonce":"0x3"}"#
        let arguments = ["auth", "sign"] + store.signingArguments(keyLabel: label)
        let result = await run(arguments + ["--allow-delegate", delegate], stdin: input)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let signed = try SignedAuthorization(json: try JSONValue(parsing: result.stdout))
        #expect(try signed.recoverAuthority().checksummed == Actions.address)
        #expect(signed.authorization == Authorization(chainId: 8453, address: try Address(delegate), nonce: 3))
        expectInvalid(await run(arguments, stdin: input), "is not an allowed delegate")
    }
}
