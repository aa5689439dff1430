/// The registry: every target `signerkit-fuzz` knows, in `--list` order.
enum FuzzTargets {
    /// All targets; add a new one here, with its seeds in `Fuzz/seed_corpus.py`.
    static let all: [FuzzTarget] = [
        JSONTargets.json,
        TypedDataTargets.typedData,
        RLPTargets.rlp,
        TransactionTargets.signedTransaction,
        TransactionTargets.transactionRequest,
        TransactionTargets.authorizationList,
        ActionTargets.walletRpcActions,
        PrimitiveTargets.caip,
        PrimitiveTargets.address,
        PrimitiveTargets.integerText,
        SoftwareKeyTargets.keystore,
        SoftwareKeyTargets.mnemonic,
        SoftwareKeyTargets.derivationPath,
        RedirectTargets.waypointCallback,
        RedirectTargets.idToken,
        PayTargets.paymentLink,
        PayTargets.apiResponses,
        NetworkTargets.httpResponseHead,
        HTTPWireTargets.httpResponse,
        NetworkTargets.jsonRPCResponse,
        SigningIntentTargets.signInMessage,
        SigningIntentTargets.clearSigningDescriptor,
        SigningIntentTargets.policyFile,
        TokenTargets.pkcs11Attributes,
        TokenTargets.kmsDER,
        CloudKMSTargets.cloudKMSInputs,
        ServiceTargets.serviceRequest,
        SmartAccountTargets.erc6492Wrapper,
        BatchTargets.erc7821Batch,
        BatchTargets.walletSendCalls,
        LedgerTargets.signedNote,
    ]

    /// The target this process runs (set once by `main` before the fuzzing loop starts).
    nonisolated(unsafe) static var selected: FuzzTarget?
}
