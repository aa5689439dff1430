import EthereumPrimitives

/// Identifiers and numbers users and servers type: CAIP-2/-10 ids, addresses, integer text.
enum PrimitiveTargets {
    static let caip = FuzzTarget(
        name: "caip",
        summary: "ChainID and AccountID (CAIP-2/-10): an accepted id prints back as its input and parses equal"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        do throws(CAIPError) {
            let chain = try ChainID(text)
            FuzzCheck.expect(chain.description == text, "a chain id prints as something else")
            FuzzCheck.expect((try? ChainID(chain.description)) == chain, "a chain id does not re-parse")
            if let number = chain.eip155ChainID {
                FuzzCheck.expect((try? ChainID(eip155ChainID: number)) == chain, "eip155 reference round trip")
            }
        } catch {
            FuzzCheck.boundedDescription(error)
        }
        do throws(CAIPError) {
            let account = try AccountID(text)
            // eip155 addresses are kept checksummed (EIP-55); other namespaces exactly as given.
            let printed = account.chainID.isEIP155 ? text.lowercased() : text
            let shown = account.chainID.isEIP155 ? account.description.lowercased() : account.description
            FuzzCheck.expect(shown == printed, "an account id prints as something else")
            FuzzCheck.expect((try? AccountID(account.description)) == account, "an account id does not re-parse")
            if let address = account.ethereumAddress {
                FuzzCheck.expect(address.lowercased == account.address.lowercased(), "the address is another one")
            }
        } catch {
            FuzzCheck.boundedDescription(error)
        }
    }

    static let address = FuzzTarget(
        name: "address",
        summary: "Address text: accepted text names the same 20 bytes as its checksummed and lower-case forms"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        do throws(AddressError) {
            let address = try Address(text)
            FuzzCheck.expect(text.lowercased() == address.lowercased, "accepted text is not the address")
            FuzzCheck.expect((try? Address(address.checksummed)) == address, "checksummed form does not re-parse")
            FuzzCheck.expect((try? Address(address.lowercased)) == address, "lower-case form does not re-parse")
            FuzzCheck.expect(Address(bytes: address.bytes) == address, "bytes round trip")
        } catch {
            FuzzCheck.boundedDescription(error)
        }
        let fromUTF8 = bytes.withUnsafeBufferPointer { try? Address(utf8: $0) }
        FuzzCheck.expect(fromUTF8 == (try? Address(text)), "Address(utf8:) and Address(_:) disagree")
    }

    static let integerText = FuzzTarget(
        name: "integer-text",
        summary: "decimal and 0x integer text: the value prints back in decimal and hex and parses equal"
    ) { bytes in
        guard let text = FuzzCheck.text(bytes) else { return }
        let fromUTF8 = bytes.withUnsafeBufferPointer { try? SignedMagnitude(utf8: $0) }
        do throws(IntegerTextError) {
            let parsed = try SignedMagnitude(text: text)
            FuzzCheck.expect(fromUTF8 == parsed, "SignedMagnitude(utf8:) and (text:) disagree")
            let value = parsed.magnitude
            FuzzCheck.expect((try? UInt256(text: value.decimalString)) == value, "decimal round trip")
            FuzzCheck.expect((try? UInt256(text: value.hexQuantity)) == value, "hex quantity round trip")
            FuzzCheck.expect(UInt256(bigEndian: value.minimalBigEndianBytes) == value, "big-endian round trip")
            for bits in [8, 64, 160, 256] {
                if let word = try? parsed.uintWord(bits: bits, text: text) {
                    FuzzCheck.expect(!parsed.isNegative || value.isZero, "a negative uint\(bits)")
                    FuzzCheck.expect(value.bitWidth <= bits, "uint\(bits) wider than \(bits) bits")
                    FuzzCheck.expect(UInt256(word: word) == value, "uint\(bits) word is another value")
                }
                _ = try? parsed.intWord(bits: bits, text: text)
            }
        } catch {
            FuzzCheck.expect(fromUTF8 == nil, "SignedMagnitude(utf8:) accepts what (text:) refuses")
            FuzzCheck.boundedDescription(error)
        }
    }
}
