import EthereumPrimitives
import EthereumTransactions
import SignerKit

/// `signerkit auth sign|hash|recover`: EIP-7702 authorizations.
enum AuthCommands {
    /// The `auth` group.
    static let command = Command.group(
        "auth", summary: "EIP-7702 authorizations: sign (for allowed delegates only), hash, recover the authority.",
        subcommands: [sign, hash, recover])

    /// `--allow-delegate ADDR` (repeatable).
    static let allowDelegateFlag = FlagSpec.option(
        "--allow-delegate", value: "ADDR", repeatable: true,
        help: "a delegate contract the authorization may name (repeatable; without one nothing is signed)")
    /// `--allow-any-chain`.
    static let allowAnyChainFlag = FlagSpec.flag(
        "--allow-any-chain", help: "sign an authorization with chainId 0 (valid on every chain)")

    /// `auth sign KEY-SOURCE [--allow-delegate ADDR]… [--allow-any-chain] [--policy FILE] [FILE|-]`.
    static let sign = Command.leaf(
        "sign",
        summary:
            "Sign {\"chainId\",\"address\",\"nonce\"}; print the signed tuple {chainId,address,nonce,yParity,r,s}.",
        details: """
            The input is a JSON object {"chainId","address","nonce"} (0x-hex or decimal quantities; address is
            the delegate contract). The signature is over keccak256(0x05 || rlp([chainId, address, nonce])).
            An authorization lets the delegate's code act for the account, so it is signed only when the
            delegate is allowed: by --allow-delegate ADDR (repeatable) or by the "allowedDelegates" member of a
            --policy file. chainId 0 makes it valid on every chain and needs --allow-any-chain (or
            "allowAnyChain": true in the policy file). A refused or malformed authorization exits 65.

            Output: {"chainId":"0x…","address":"0x…","nonce":"0x…","yParity":"0x0","r":"0x…","s":"0x…"},
            minimal hex quantities and the EIP-55 address: the JSON-RPC shape a type 0x4 transaction's
            authorizationList takes.

            \(SigningKeyOptions.details)
            """,
        synopsis:
            "\(SigningKeyOptions.synopsis) [--allow-delegate ADDR]… [--allow-any-chain] [--policy FILE] [FILE|-]",
        flags: SigningKeyOptions.flags + [allowDelegateFlag, allowAnyChainFlag, PreviewOptions.policyFlag],
        positionals: [.positional("FILE|-", optional: true, help: "authorization JSON; - or no argument reads stdin")],
        run: runSign)

    /// `auth hash [FILE|-]`.
    static let hash = Command.leaf(
        "hash",
        summary: "Print the signing hash keccak256(0x05 || rlp([chainId, address, nonce])) of an authorization.",
        synopsis: "[FILE|-]",
        positionals: [.positional("FILE|-", optional: true, help: "authorization JSON; - or no argument reads stdin")],
        run: runHash)

    /// `auth recover [FILE|-]`.
    static let recover = Command.leaf(
        "recover", summary: "Print the authority (EIP-55) that signed an authorization {…,yParity,r,s}.",
        details: """
            The signature must be one a node accepts: yParity 0 or 1, r and s in range, s at most n/2
            (EIP-7702); otherwise exit 65 naming the problem.
            """,
        synopsis: "[FILE|-]",
        positionals: [.positional("FILE|-", optional: true, help: "signed authorization JSON; - or none reads stdin")],
        run: runRecover)

    /// Signs and prints the tuple.
    static func runSign(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        try SigningKeyOptions.checkPresent(context.options)
        let policy = try policy(context.options)
        let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
        let authorization = try parse(text)
        let signer = try await loadSigningKey(context.options, io: context.io)
        let signed: SignedAuthorization
        do { signed = try await signer.signAuthorization(authorization, policy: policy) } catch {
            throw .invalidInput("\(error)")
        }
        context.printLine(signed.json.serialized)
        return .success
    }

    /// Prints the signing hash.
    static func runHash(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
        context.printLine(try parse(text).signingHash.hex)
        return .success
    }

    /// Prints the authority.
    static func runRecover(_ context: CommandContext) async throws(CommandFailure) -> ExitCode {
        let text = try InputSource(positional: context.options.positional(0)).readText(io: context.io)
        let value = try json(text)
        let signed: SignedAuthorization
        do { signed = try SignedAuthorization(json: value) } catch { throw .invalidInput(error.description) }
        do { context.printLine(try signed.recoverAuthority().checksummed) } catch {
            throw .invalidInput(error.description)
        }
        return .success
    }

    /// The delegates allowed by the flags and the policy file together.
    ///
    /// - Throws: 65 for an invalid `--allow-delegate` address or policy file.
    static func policy(_ options: ParsedOptions) throws(CommandFailure) -> AllowedDelegates {
        var delegates: Set<Address> = []
        for text in options.allValues(allowDelegateFlag.name) {
            do { delegates.insert(try Address(text)) } catch {
                throw .invalidInput("--allow-delegate \(TextSafety.displayArgument(text)): \(error)")
            }
        }
        var anyChain = options.has(allowAnyChainFlag.name)
        if let path = options.value(PreviewOptions.policyFlag.name) {
            let text = try PreviewOptions.readFile(path)
            do {
                if let file = try PolicyFile.allowedDelegates(jsonText: text) {
                    delegates.formUnion(file.delegates)
                    anyChain = anyChain || file.allowsAnyChain
                }
            } catch {
                throw .invalidInput("--policy \(TextSafety.displayArgument(path)): \(error)")
            }
        }
        return AllowedDelegates(delegates, allowingAnyChain: anyChain)
    }

    static func json(_ text: String) throws(CommandFailure) -> JSONValue {
        do { return try JSONValue(parsing: text) } catch { throw .invalidInput(error.description) }
    }

    /// Parses `{"chainId","address","nonce"}`.
    static func parse(_ text: String) throws(CommandFailure) -> Authorization {
        let value = try json(text)
        do { return try Authorization(json: value) } catch { throw .invalidInput(error.description) }
    }
}
