import EthereumPrimitives

/// The ABI encoding of the few contract calls SignerKit makes itself: a head of static words and
/// `bytes` arguments, each `bytes` as an offset in the head and its length and right-padded data in the tail.
enum ContractCallData {
    /// One argument of a call.
    enum Argument {
        /// A static 32-byte word (`bytes32`, `address`, `uintN`).
        case word(Bytes32)
        /// A dynamic `bytes` value.
        case bytes([UInt8])
    }

    /// `abi.encode(arguments…)`, without a selector.
    static func encode(_ arguments: [Argument]) -> [UInt8] {
        var head: [UInt8] = []
        var tail: [UInt8] = []
        let headSize = 32 * arguments.count
        for argument in arguments {
            switch argument {
            case .word(let word):
                head += word.bytes
            case .bytes(let bytes):
                head += UInt256(UInt64(headSize + tail.count)).word.bytes
                tail += UInt256(UInt64(bytes.count)).word.bytes
                tail += bytes
                tail += [UInt8](repeating: 0, count: (32 - bytes.count % 32) % 32)
            }
        }
        return head + tail
    }

    /// `selector ++ abi.encode(arguments…)`.
    static func call(_ selector: [UInt8], _ arguments: [Argument]) -> [UInt8] {
        selector + encode(arguments)
    }
}
