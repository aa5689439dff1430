import EthereumPrimitives
import EthereumTransactions

extension TxCommands {
    /// `tx sponsor KEY-SOURCE [--allow-no-expiry] [FILE|-]`: the payer's side of a Ronin sponsored transaction.
    static let sponsor = Command.leaf(
        "sponsor",
        summary:
            "Sign as the payer of a Ronin sponsored transaction (type 0x64); print the request with its signature.",
        details: """
            FILE is the sender's type 0x64 request: chainId, nonce, gas, maxFeePerGas, maxPriorityFeePerGas,
            to (absent: a contract creation), value, data, expiredTime, and "from" (the sender, whose address
            the payer's signature commits to); "payer", when given, must be the signing key's address. The key
            signs keccak256(rlp([chainId, sender, nonce, maxPriorityFeePerGas, maxFeePerGas, gas, to, value,
            data, expiredTime])) as REP-0008 defines it, and the request is printed as one line of JSON with
            "payer", "payerV", "payerR" and "payerS" (hex quantities) added; the sender then signs it with
            "tx sign". Nothing is broadcast.

            The payer pays the gas, so the request is refused (exit 65) when expiredTime is 0 (it never
            expires; --allow-no-expiry accepts that, naming expiredTime otherwise) and when the payer would be
            the sender (naming payer). The hash a payer signs has no domain byte: keep a payer key for this
            command (and the service's ronin_sponsorTransaction) only.

            \(SigningKeyOptions.details)
            """,
        synopsis: "\(SigningKeyOptions.synopsis) [--allow-no-expiry] [FILE|-]",
        flags: SigningKeyOptions.flags + [
            .flag("--allow-no-expiry", help: "sponsor a transaction whose expiredTime is 0 (it never expires)")
        ],
        positionals: [
            .positional("FILE|-", optional: true, help: "the sender's request; - or no argument reads stdin")
        ],
        run: runSponsor)

    /// Signs as the payer and prints the request with `payer`, `payerV`, `payerR`, `payerS`.
    static func runSponsor(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        try SigningKeyOptions.checkPresent(context.options)
        let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
        var request = try parse(text)
        guard request.type == .roninSponsored else {
            throw .invalidInput("field \"type\": \(request.type) is not sponsored (tx sponsor signs type 0x64 only)")
        }
        guard request.from != nil else { throw .invalidInput(TransactionError.missingField("from").description) }
        guard let expiredTime = request.expiredTime else {
            throw .invalidInput(TransactionError.missingField("expiredTime").description)
        }
        if expiredTime == 0 && !context.options.has("--allow-no-expiry") {
            throw .invalidInput(
                "field \"expiredTime\": 0 never expires, so the payer would pay whenever it is sent "
                    + "(--allow-no-expiry sponsors it anyway)")
        }
        guard request.chainId != nil else { throw .invalidInput(TransactionError.missingField("chainId").description) }
        let payer = try await loadSigningKey(context.options, io: context.io)
        if let named = request.payer, named != payer.address {
            throw .invalidInput(
                "field \"payer\": \(named.checksummed) is not the signing key's address \(payer.address.checksummed)")
        }
        if request.from == payer.address {
            throw .invalidInput(TransactionError.payerIsSender(payer.address).description)
        }
        let hash: Bytes32
        do { hash = try request.roninPayerSigningHash(chainId: request.chainId) } catch {
            throw .invalidInput(error.description)
        }
        request.payer = payer.address
        request.payerSignature = try await SignerKitCommands.sign(hash, with: payer)
        context.printLine(request.json.serialized)
        return .success
    }
}
