// EXPECT-ERROR: 'SignedActions' initializer is inaccessible due to 'internal' protection level
//
// Only RpcDispatcher creates a SignedActions, after every action produced its result: code outside
// SignerKit cannot build a partial or misordered bundle. Not part of any SwiftPM target; type-checked
// by scripts/compile-fail-check.sh, which requires this file to FAIL with the error above.
import SignerKit

func forgeBundle() -> SignedActions {
    SignedActions(actions: [], outcomes: [])
}
