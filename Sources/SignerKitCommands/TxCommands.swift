import EthereumPrimitives
import EthereumTransactions
import SignerKit

/// `signerkit tx sign`: Ethereum transactions.
enum TxCommands {
    /// The `tx` group.
    static let command = Command.group(
        "tx", summary: "Sign Ethereum transactions (legacy/EIP-155, EIP-2930, EIP-1559, EIP-7702, Ronin 0x64).",
        subcommands: [sign, sponsor])

    /// `tx sign KEY-SOURCE [FILE|-]`.
    static let sign = Command.leaf(
        "sign", summary: "Sign a complete eth_sendTransaction JSON object; print {\"raw\":\"0x…\",\"hash\":\"0x…\"}.",
        details: """
            The object must carry every field the transaction needs: chainId, nonce, gas (or gasLimit), and
            gasPrice, or maxFeePerGas and maxPriorityFeePerGas; a missing one exits 65 naming it. The type is
            "type" when given, else 0x4 with an authorizationList, 0x2 with EIP-1559 fees, 0x1 with an
            accessList, else legacy (EIP-155). A type 0x4 (EIP-7702 set-code) transaction needs "to" and a
            non-empty authorizationList of signed tuples {chainId, address, nonce, yParity, r, s} (what "auth
            sign" prints). A "from" field must be the signing key's address. Nothing is broadcast ("sign --actions --rpc-url" does
            that).

            A legacy transaction without chainId (pre-EIP-155: valid on every chain, so replayable) is signed
            only with --allow-unprotected; without it, exit 65 naming chainId.

            A Ronin sponsored transaction (type 0x64, REP-0008) is signed by its sender once the payer has
            signed ("tx sponsor" adds payerV, payerR and payerS): the payer's signature must recover to "payer"
            (to any address but the sender when "payer" is absent), else exit 65 naming the payer fields.

            \(SigningKeyOptions.details)
            """,
        synopsis: "\(SigningKeyOptions.synopsis) [--allow-unprotected] [FILE|-]",
        flags: SigningKeyOptions.flags + [
            .flag(
                "--allow-unprotected",
                help: "sign a legacy transaction without chainId (pre-EIP-155, replayable on every chain)")
        ],
        positionals: [.positional("FILE|-", optional: true, help: "transaction JSON; - or no argument reads stdin")],
        run: runSign)

    /// Signs and prints `{"raw":…,"hash":…}`.
    static func runSign(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let source = try SigningKeyOptions.checkPresent(context.options)
        let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
        var request = try parse(text)
        if source == .remote { return try await signRemotely(context, request: request, text: text) }
        let transaction: any TransactionFields
        let signer: any PrehashSigner
        if request.type == .roninSponsored {
            signer = try await loadSigningKey(context.options, io: context.io)
            // The sender is the signing key unless the request names it; the payer's signature commits to it.
            request.from = request.from ?? signer.address
            transaction = try sponsored(request)
        } else {
            transaction = try complete(request, allowUnprotected: context.options.has("--allow-unprotected"))
            signer = try await loadSigningKey(context.options, io: context.io)
        }
        if let from = request.from, from != signer.address {
            throw .invalidInput(
                "field \"from\": \(from.checksummed) is not the signing key's address \(signer.address.checksummed)")
        }
        let signature = try await SignerKitCommands.sign(transaction.signingHash, with: signer)
        let signed = transaction.signed(with: signature)
        context.printLine("{\"raw\":\"\(signed.rawTransactionHex)\",\"hash\":\"\(signed.hash.hex)\"}")
        return .success
    }

    /// `tx sign` with `--remote-signer`: the request as given (`from` set to the remote's account when absent)
    /// signed by the remote with `eth_signTransaction`, its answer verified by the dispatcher (it matches the
    /// request field for field and recovers to the account), printed as with a key.
    ///
    /// - Throws: 65 for a request without `chainId` or a 0x64 request (a remote signs neither), or the remote's
    ///   failure or the refusal of its answer.
    static func signRemotely(_ context: CommandContext, request: TransactionRequest, text: String)
        async throws(CommandFailure) -> ExitCode
    {
        guard let chain = request.chainId, request.type != .roninSponsored else {
            throw .invalidInput("--remote-signer signs a transaction with a chainId, and no 0x64 request")
        }
        guard case .object(let object) = try? JSONValue(parsing: text) else {
            throw .invalidInput("the transaction is not a JSON object")
        }
        let raw = try await RemoteSigning.result(.signTransaction, chain: chain, context.options, io: context.io) {
            var transaction = object
            if transaction["from"] == nil { transaction["from"] = .string($0.checksummed) }
            return .array([.object(transaction)])
        }
        let signed: SignedTransaction
        do { signed = try SignedTransaction.decode(hex: raw) } catch { throw .invalidInput("\(error)") }
        context.printLine("{\"raw\":\"\(raw)\",\"hash\":\"\(signed.hash.hex)\"}")
        return .success
    }

    /// Parses the request object.
    ///
    /// - Throws: 65 with the JSON error or the field (`field "gas": invalid quantity "x"`).
    static func parse(_ text: String) throws(CommandFailure) -> TransactionRequest {
        let value: JSONValue
        do { value = try JSONValue(parsing: text) } catch { throw .invalidInput(error.description) }
        do { return try TransactionRequest(json: value) } catch { throw .invalidInput(error.description) }
    }

    /// The complete transaction; the request must name its chain, unless `allowUnprotected` lets a legacy
    /// one go without (pre-EIP-155).
    ///
    /// - Throws: 65 `field "chainId" is missing`, `field "nonce" is missing`, ….
    static func complete(_ request: TransactionRequest, allowUnprotected: Bool) throws(CommandFailure) -> Transaction {
        guard request.chainId != nil || (allowUnprotected && request.type == .legacy) else {
            let hint = request.type == .legacy ? " (--allow-unprotected signs it without replay protection)" : ""
            throw .invalidInput(TransactionError.missingField("chainId").description + hint)
        }
        do { return try request.complete(chainId: request.chainId) } catch { throw .invalidInput(error.description) }
    }

    /// The type 0x64 transaction the sender signs: the payer's signature checked first.
    static func sponsored(_ request: TransactionRequest) throws(CommandFailure) -> RoninSponsoredTransaction {
        guard request.chainId != nil else { throw .invalidInput(TransactionError.missingField("chainId").description) }
        do { return try request.roninSponsored(chainId: request.chainId) } catch {
            throw .invalidInput(error.description)
        }
    }
}
