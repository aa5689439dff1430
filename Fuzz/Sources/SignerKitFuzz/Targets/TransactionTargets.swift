import EthereumPrimitives
import EthereumTransactions
import Secp256k1

/// Raw transactions from nodes and wallets, transaction requests from dapps, EIP-7702 authorization lists.
enum TransactionTargets {
    static let signedTransaction = FuzzTarget(
        name: "signed-transaction",
        summary: "SignedTransaction.decode (legacy, 0x1, 0x2, 0x4, Ronin 0x64): decoded bytes re-encode to the "
            + "input; a recovered sender verifies; a recovered payer is low-s and not the sender"
    ) { bytes in
        let decoded: SignedTransaction
        do throws(TransactionError) {
            decoded = try SignedTransaction.decode(raw: bytes)
        } catch {
            FuzzCheck.boundedDescription(error)
            return
        }
        FuzzCheck.expect(decoded.rawTransaction == bytes, "rawTransaction is not the input")
        let rebuilt = SignedTransaction(transaction: decoded.transaction, signature: decoded.signature)
        FuzzCheck.expect(rebuilt.rawTransaction == bytes, "re-encoding gives other bytes")
        FuzzCheck.expect((try? SignedTransaction.decode(hex: decoded.rawTransactionHex)) == decoded, "hex round trip")
        FuzzCheck.expect(decoded.hash == Keccak256.hash(bytes), "hash is not keccak of the raw bytes")
        if let sender = try? decoded.recoverSender() {
            FuzzCheck.expect(decoded.signature.isLowS, "a sender recovered from a high-s signature")
            let again = try? ECDSA.recoverAddress(
                prehash: decoded.transaction.signingHash, signature: decoded.signature)
            FuzzCheck.expect(again == sender, "sender recovery is not repeatable")
        }
        if case .roninSponsored(let sponsored) = decoded.transaction, let sender = try? decoded.recoverSender(),
            let payer = try? sponsored.recoverPayer(sender: sender)
        {
            FuzzCheck.expect(sponsored.payerSignature.isLowS, "a payer recovered from a high-s signature")
            FuzzCheck.expect(payer != sender, "the payer recovered is the sender")
        }
        for authorization in decoded.transaction.authorizationList {
            if (try? authorization.recoverAuthority()) != nil {
                FuzzCheck.expect(
                    authorization.yParity <= 1, "an authority recovered with yParity \(authorization.yParity)")
            }
        }
    }

    static let transactionRequest = FuzzTarget(
        name: "transaction-request",
        summary: "eth_sendTransaction / eth_signTransaction params (TransactionRequest from JSON): typed errors, "
            + "completion never traps"
    ) { bytes in
        guard let json = try? JSONValue(parsing: bytes) else { return }
        do throws(TransactionError) {
            let request = try TransactionRequest(json: json)
            _ = request.missingFields
            if request.type == .roninSponsored {
                // Both sides of a sponsored request: typed errors, never a trap.
                _ = try? request.roninPayerSigningHash(chainId: request.chainId)
                if let sponsored = try? request.roninSponsored(chainId: request.chainId) {
                    FuzzCheck.expect(sponsored.value == request.value, "sponsoring changed the value")
                    FuzzCheck.expect(sponsored.to == request.to, "sponsoring changed the destination")
                }
            }
            if let transaction = try? request.complete(chainId: request.chainId) {
                FuzzCheck.expect(transaction.type == request.type, "completion changed the type")
                FuzzCheck.expect(transaction.value == request.value, "completion changed the value")
                FuzzCheck.expect(transaction.data == request.data, "completion changed the data")
                FuzzCheck.expect(transaction.to == request.to, "completion changed the destination")
            }
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }

    static let authorizationList = FuzzTarget(
        name: "authorization-list",
        summary: "EIP-7702 authorization lists (signed tuples as JSON): accepted tuples print back and parse equal; "
            + "recovered authorities verify"
    ) { bytes in
        guard let json = try? JSONValue(parsing: bytes) else { return }
        let elements = json.arrayValue ?? [json]
        for (index, element) in elements.enumerated() {
            do throws(TransactionError) {
                let signed = try SignedAuthorization(json: element, field: "authorizationList[\(index)]")
                FuzzCheck.expect((try? SignedAuthorization(json: signed.json)) == signed, "JSON round trip")
                let unsigned = try Authorization(json: element)
                FuzzCheck.expect(unsigned.chainId == signed.chainId && unsigned.nonce == signed.nonce, "fields differ")
                if let authority = try? signed.recoverAuthority() {
                    FuzzCheck.expect(signed.yParity <= 1, "an authority recovered with yParity \(signed.yParity)")
                    FuzzCheck.expect((try? signed.recoverAuthority()) == authority, "recovery is not repeatable")
                }
            } catch {
                FuzzCheck.boundedDescription(error)
            }
        }
    }
}
