# pragma version 0.4.3
# pragma evm-version prague
"""
@title SignerKit's minimal ERC-7821 batch executor (test fixture)
@notice The delegate an EOA points at with EIP-7702 so that one transaction from the EOA to itself
        runs several calls atomically: `execute(mode, executionData)` in the single-batch mode, where
        `executionData` is `abi.encode(Call[])` and `Call = (address target, uint256 value, bytes data)`.
        Any failing call reverts the whole batch with the call's own revert data.
        Only the account itself may execute (`msg.sender == self`): under EIP-7702 `self` is the EOA,
        so a transaction the EOA sends to its own address is the one authorization.
        Written for SignerKit's tests (compiled by scripts/evm-node/compile_contracts.py); holds no
        storage, so delegating to it and away from it leaves nothing behind.
"""

# ERC-7821 single batch, no opData: 0x01 then 31 zero bytes.
SINGLE_BATCH: constant(bytes32) = 0x0100000000000000000000000000000000000000000000000000000000000000

MAX_CALLS: constant(uint256) = 8
MAX_CALL_DATA: constant(uint256) = 1024
# abi.encode(Call[MAX_CALLS]) with MAX_CALL_DATA bytes each: 64 + 8 * (32 + 96 + 32 + 1024).
MAX_EXECUTION_DATA: constant(uint256) = 9536
# Revert data bubbled up is cut to this many bytes.
MAX_REVERT_DATA: constant(uint256) = 1024


struct Call:
    target: address
    value: uint256
    data: Bytes[MAX_CALL_DATA]


@external
@view
def supportsExecutionMode(mode: bytes32) -> bool:
    """
    @notice Whether `execute` accepts `mode`: only the single-batch mode without opData.
    """
    return mode == SINGLE_BATCH


@external
@payable
def execute(mode: bytes32, executionData: Bytes[MAX_EXECUTION_DATA]):
    """
    @notice Runs the calls in `executionData` in order; reverts with the first failing call's revert
            data. A call whose target is the zero address goes to this account (ERC-7821).
    """
    assert msg.sender == self, "BatchExecutor: only the account itself"
    assert mode == SINGLE_BATCH, "BatchExecutor: unsupported mode"
    calls: DynArray[Call, MAX_CALLS] = abi_decode(executionData, DynArray[Call, MAX_CALLS])
    for call: Call in calls:
        target: address = call.target
        if target == empty(address):
            target = self
        success: bool = False
        returned: Bytes[MAX_REVERT_DATA] = b""
        success, returned = raw_call(
            target, call.data, max_outsize=MAX_REVERT_DATA, value=call.value, revert_on_failure=False
        )
        if not success:
            raw_revert(returned)


@external
@payable
def __default__():
    """
    @notice Plain transfers to the delegated account keep working.
    """
    pass
