import EthereumPrimitives

/// SignerKit's signature type for signed notes: a secp256k1 key named by its Ethereum address signs the
/// EIP-191 `personal_sign` digest of the note text, so any Ethereum tool checks it (e.g.
/// `cast wallet verify --address <address> "$BODY" 0x<r‖s‖v>`, with `$BODY` the note text including its
/// final newline).
///
/// - The signature, after the 4-byte key ID, is 65 bytes r‖s‖v: low s (EIP-2), v = 27 + recovery id, over
///   keccak256("\u{19}Ethereum Signed Message:\n" ‖ decimal byte length ‖ note text).
/// - The key ID is SHA-256(key name ‖ 0x0A ‖ 0xFF ‖ "signerkit/eip191-secp256k1" ‖ 20-byte address)[:4]
///   (``keyID(keyName:address:)``).
///
/// The type byte: c2sp.org/signed-note assigns 0x01–0x06 to its own types and keeps 0xfa–0xfe
/// "reserved for future use"; it leaves one byte to everyone else, "0xff — Reserved for signature types
/// without an identifier byte assigned by this specification. It is RECOMMENDED that this byte be followed by
/// a longer identifier that is unlikely to collide." So SignerKit's type is 0xFF followed by the identifier
/// `signerkit/eip191-secp256k1`, and the "public key" the key ID hashes is the key's address (what a
/// verifier is configured with, and what recovery yields).
extension SignedNote {
    /// The signature type byte of SignerKit's note signatures: 0xFF, the byte the spec leaves to types it
    /// does not assign, followed by ``signatureTypeIdentifier``.
    static let signatureType: UInt8 = 0xFF
    /// The identifier that follows ``signatureType`` in the key ID's hash.
    static let signatureTypeIdentifier = "signerkit/eip191-secp256k1"

    /// The key ID of the key `keyName` that signs for `address`: the first 4 bytes, big-endian, of
    /// SHA-256(key name ‖ 0x0A ‖ 0xFF ‖ "signerkit/eip191-secp256k1" ‖ 20-byte address).
    public static func keyID(keyName: String, address: Address) -> UInt32 {
        var input = Array(keyName.utf8)
        input.append(0x0A)
        input.append(signatureType)
        input.append(contentsOf: signatureTypeIdentifier.utf8)
        input.append(contentsOf: address.bytes)
        let hash = MerkleHash.sha256(input)
        return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(hash[$1]) }
    }

    /// Signs `checkpoint` with `signer` under `keyName` (which should match the checkpoint's origin): a note
    /// of the checkpoint's body and one signature line. The signature is checked against the signer's
    /// address before it is written.
    ///
    /// - Throws: ``SignedNoteError/invalidKeyName(_:)``, ``SignedNoteError/signing(_:)`` or
    ///   ``SignedNoteError/signerMismatch(_:)``.
    public static func sign(_ checkpoint: Checkpoint, with signer: any PrehashSigner, keyName: String)
        async throws(SignedNoteError) -> SignedNote
    {
        guard NoteText.isKeyName(keyName) else { throw .invalidKeyName(EchoedText.abbreviated(keyName)) }
        let body = checkpoint.body
        let message = Array(body.utf8)
        let signature: RecoverableSignature
        do { signature = try await signer.signPersonalMessage(message) } catch { throw .signing(error) }
        do { try SignatureCheck.verify(signature, over: PersonalMessage.digest(message), by: signer.address) } catch {
            throw .signerMismatch(error)
        }
        let line = Signature(
            keyName: keyName, keyID: keyID(keyName: keyName, address: signer.address), bytes: signature.rsv)
        return SignedNote(body: body, signatures: [line])
    }

    /// Verifies the note against the key `keyName` for `address`, then reads its text as a checkpoint.
    ///
    /// Lines by other keys (another name, or the same name with another key ID) are ignored, as the spec
    /// requires; every line by this key must verify, and at least one must be there.
    ///
    /// - Throws: ``SignedNoteError/invalidKeyName(_:)``, ``SignedNoteError/noSignatureByKey(keyName:keyID:otherKeyIDs:)``
    ///   when no line is by the key, ``SignedNoteError/wrongSignatureLength(line:length:)``,
    ///   ``SignedNoteError/invalidRecoveryByte(line:value:)`` or ``SignedNoteError/badSignature(line:_:)`` for
    ///   a line by the key that does not verify, ``SignedNoteError/checkpoint(_:)`` when the verified text is
    ///   not a checkpoint.
    public func verify(keyName: String, address: Address) throws(SignedNoteError) -> Checkpoint {
        guard NoteText.isKeyName(keyName) else { throw .invalidKeyName(EchoedText.abbreviated(keyName)) }
        let id = Self.keyID(keyName: keyName, address: address)
        let digest = PersonalMessage.digest(Array(body.utf8))
        var verified = false
        for (index, signature) in signatures.enumerated()
        where NoteText.sameBytes(signature.keyName, keyName) && signature.keyID == id {
            let line = lineNumber(ofSignature: index)
            guard signature.bytes.count == 65 else {
                throw .wrongSignatureLength(line: line, length: signature.bytes.count)
            }
            let v = signature.bytes[64]
            guard v == 27 || v == 28, let parsed = try? RecoverableSignature(rsv: signature.bytes) else {
                throw .invalidRecoveryByte(line: line, value: v)
            }
            do { try SignatureCheck.verify(parsed, over: digest, by: address) } catch {
                throw .badSignature(line: line, error)
            }
            verified = true
        }
        guard verified else {
            let others = signatures.filter { NoteText.sameBytes($0.keyName, keyName) }.map(\.keyID)
            throw .noSignatureByKey(keyName: keyName, keyID: id, otherKeyIDs: others)
        }
        do { return try Checkpoint(parsing: body) } catch { throw .checkpoint(error) }
    }
}
