import EthereumPrimitives

/// The ABI encoding of the few contract calls SignerKit makes itself: a head of static words and dynamic
/// arguments, each dynamic one as an offset in the head and its encoding in the tail (`bytes`: its length and
/// right-padded data; a tuple or an array: its own encoding, made by nesting these functions).
enum ContractCallData {
    /// One argument of a call.
    enum Argument {
        /// A static 32-byte word (`bytes32`, `address`, `uintN`).
        case word(Bytes32)
        /// A dynamic `bytes` value.
        case bytes([UInt8])
        /// A dynamic value already encoded: a tuple with a dynamic member (``encode(_:)`` of its members), or
        /// a dynamic array (``array(_:)``).
        case encoded([UInt8])
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
            case .encoded(let encoding):
                head += UInt256(UInt64(headSize + tail.count)).word.bytes
                tail += encoding
            }
        }
        return head + tail
    }

    /// The encoding of a dynamic array `T[]` of `elements`: its length, then the elements as the arguments of
    /// ``encode(_:)`` (offsets count from the first element's head, as the ABI has them).
    static func array(_ elements: [Argument]) -> [UInt8] {
        UInt256(UInt64(elements.count)).word.bytes + encode(elements)
    }

    /// `selector ++ abi.encode(arguments…)`.
    static func call(_ selector: [UInt8], _ arguments: [Argument]) -> [UInt8] {
        selector + encode(arguments)
    }
}
