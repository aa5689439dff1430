import EthereumPrimitives
import KeccakComplemented
import KeccakReference

/// Names of the Keccak cases that other files refer to (as a baseline or as the perm-eq reference).
enum KeccakCase {
    /// The plain textbook C permutation at -O3 — the unit every other case is expressed in.
    static let referencePermutation = "keccak-f1600 (C reference -O3)"
    /// The lane-complementing C permutation, built with CKeccak's flags.
    static let complementedPermutation = "keccak-f1600 (C lane-complementing)"
    /// SignerKit against the lane-complementing C permutation.
    static let signerKitVsComplemented = "keccak-f1600 (SignerKit) vs lane-complementing C"
    /// SignerKit's own permutation (`KeccakF1600.permute`, Sources/CKeccak).
    static let signerKitPermutation = "keccak-f1600 (SignerKit)"
}

/// Keccak-f[1600] permutations and Keccak-256 hashes of a few sizes.
///
/// Hash ratios are against the reference permutation × the number of permutations the hash performs,
/// so "1.00×" means the sponge (absorb, pad, squeeze, API overhead) is free on top of the permutations.
func keccakBenchmarks() -> [Benchmark] {
    let referenceLanes = ScratchBuffer<UInt64>(repeating: 0, count: 25)
    let signerKitLanes = ScratchBuffer<UInt64>(repeating: 0, count: 25)
    let complementedLanes = ScratchBuffer<UInt64>(repeating: 0, count: 25)
    fillPseudoRandom(referenceLanes.buffer, seed: 1)
    fillPseudoRandom(signerKitLanes.buffer, seed: 1)
    fillPseudoRandom(complementedLanes.buffer, seed: 1)

    return [
        // Each iteration permutes the previous output, so iterations form a dependency chain (latency).
        Benchmark(name: KeccakCase.referencePermutation, group: "keccak") { iterations in
            let lanes = referenceLanes.pointer
            for _ in 0..<iterations { ref_keccakf1600(lanes) }
            blackHole(lanes.pointee)
        },
        Benchmark(
            name: KeccakCase.signerKitPermutation, group: "keccak", baseline: KeccakCase.referencePermutation,
            unitsPerIteration: 1
        ) { iterations in
            let lanes = signerKitLanes.pointer
            for _ in 0..<iterations { KeccakF1600.permute(lanes) }
            blackHole(lanes.pointee)
        },
        Benchmark(
            name: KeccakCase.complementedPermutation, group: "keccak", baseline: KeccakCase.referencePermutation
        ) { iterations in
            let lanes = complementedLanes.pointer
            for _ in 0..<iterations { lc_keccakf1600(lanes) }
            blackHole(lanes.pointee)
        },
        Benchmark(
            name: KeccakCase.signerKitVsComplemented, group: "keccak", baseline: KeccakCase.complementedPermutation
        ) { iterations in
            let lanes = signerKitLanes.pointer
            for _ in 0..<iterations { KeccakF1600.permute(lanes) }
            blackHole(lanes.pointee)
        },
        keccak256Benchmark(length: 32),
        keccak256Benchmark(length: 136),
        keccak256Benchmark(length: 1024),
    ]
}

/// `Keccak256.hash(_: [UInt8])` of a fixed `length`-byte message, compared with as many reference
/// permutations as the sponge needs: Keccak padding always adds at least one byte, so a message of
/// `length` bytes takes `length / 136 + 1` permutations (32 B → 1, 136 B → 2, 1024 B → 8).
private func keccak256Benchmark(length: Int) -> Benchmark {
    let rate = 136
    let permutations = length / rate + 1
    let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
    return Benchmark(
        name: "keccak256 \(length) B", group: "keccak", baseline: KeccakCase.referencePermutation,
        unitsPerIteration: Double(permutations)
    ) { iterations in
        var accumulator: UInt8 = 0
        for _ in 0..<iterations { accumulator ^= Keccak256.hash(message)[0] }
        blackHole(accumulator)
    }
}

/// Checks the C reference against known answers, and `KeccakF1600.permute` and the lane-complementing C
/// permutation against it on several states, so no side of a ratio is timing a wrong permutation.
let keccakReferenceSelfCheck = SelfCheck(
    name: "Keccak-f[1600] C reference == KeccakF1600.permute == lane-complementing C"
) {
    // Known answer: Keccak-f[1600] of the all-zero state (lanes 0 and 24).
    var zero = [UInt64](repeating: 0, count: 25)
    zero.withUnsafeMutableBufferPointer { lanes in
        if let base = lanes.baseAddress { ref_keccakf1600(base) }
    }
    guard zero[0] == 0xF125_8F79_40E1_DDE7, zero[24] == 0xEAF1_FF7B_5CEC_A249 else {
        return "reference permutation of the zero state is wrong: lane 0 = \(hex(zero[0])), lane 24 = \(hex(zero[24]))"
    }

    // Differential: several starting states, each permuted a few times in a chain.
    var starts: [(label: String, lanes: [UInt64])] = [
        ("zero state", [UInt64](repeating: 0, count: 25)),
        ("all-ones state", [UInt64](repeating: .max, count: 25)),
    ]
    for seed: UInt64 in [1, 2, 0xDEAD_BEEF] {
        var lanes = [UInt64](repeating: 0, count: 25)
        lanes.withUnsafeMutableBufferPointer { fillPseudoRandom($0, seed: seed) }
        starts.append(("SplitMix64 seed \(seed)", lanes))
    }
    for (label, lanes) in starts {
        var reference = lanes
        var signerKit = lanes
        var complemented = lanes
        for round in 1...3 {
            reference.withUnsafeMutableBufferPointer { lanes in
                if let base = lanes.baseAddress { ref_keccakf1600(base) }
            }
            complemented.withUnsafeMutableBufferPointer { lanes in
                if let base = lanes.baseAddress { lc_keccakf1600(base) }
            }
            KeccakF1600.permute(&signerKit)
            if let lane = (0..<25).first(where: { reference[$0] != signerKit[$0] }) {
                return "\(label), permutation #\(round): lane \(lane) differs "
                    + "(reference \(hex(reference[lane])), SignerKit \(hex(signerKit[lane])))"
            }
            if let lane = (0..<25).first(where: { reference[$0] != complemented[$0] }) {
                return "\(label), permutation #\(round): lane \(lane) differs "
                    + "(reference \(hex(reference[lane])), lane-complementing \(hex(complemented[lane])))"
            }
        }
    }
    return nil
}

/// Deterministic SplitMix64 fill, so permutation cases start from the same arbitrary-looking state.
func fillPseudoRandom(_ lanes: UnsafeMutableBufferPointer<UInt64>, seed: UInt64) {
    var state = seed
    for index in lanes.indices {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        lanes[index] = z ^ (z >> 31)
    }
}

private func hex(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
}
