import EthereumPrimitives
import SignerKit

/// Smart-account signatures: the ERC-6492 wrapper a counterfactual account signs with.
enum SmartAccountTargets {
    static let erc6492Wrapper = FuzzTarget(
        name: "erc6492-wrapper",
        summary: "ERC-6492 wrappers (the input, and the input with the magic suffix appended): typed errors naming "
            + "field and position; an accepted wrapper's parts re-encode to a wrapper that parses equal"
    ) { bytes in
        for candidate in [bytes, bytes + ERC6492Wrapper.magicSuffix] {
            do throws(ERC6492WrapperError) {
                let wrapper = try ERC6492Wrapper(parsing: candidate)
                FuzzCheck.expect(ERC6492Wrapper.isWrapped(candidate), "a wrapper without the magic suffix parsed")
                // Each part is a slice of the input; two parts may share bytes (their offsets may point at the
                // same data, as abi.decode allows), so only each one alone is bounded by the input.
                FuzzCheck.expect(
                    wrapper.signature.count <= candidate.count && wrapper.factoryCalldata.count <= candidate.count,
                    "a part longer than the input")
                FuzzCheck.expect(
                    (try? ERC6492Wrapper(parsing: wrapper.encoded)) == wrapper, "a re-encoded wrapper differs")
            } catch {
                FuzzCheck.boundedDescription(error)
            }
        }
    }
}
