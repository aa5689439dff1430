// EXPECT-ERROR: cannot assign to property: '(actions|outcomes)' is a 'let' constant
//
// A bundle cannot be edited after the dispatcher made it: its actions and outcomes are constants.
// Type-checked by scripts/compile-fail-check.sh, which requires this file to FAIL with the error above.
import EthereumPrimitives
import SignerKit

func tamper(with signed: SignedActions, swap: [ActionResult]) {
    var copy = signed
    copy.outcomes = swap
    copy.actions = []
}
